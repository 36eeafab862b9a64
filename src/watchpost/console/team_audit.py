"""/team/audit, the team's audit log (admins), newest first, filtered by who, what and
when, and paged; the filters, the page and its size are in the URL."""

from __future__ import annotations

from datetime import date, datetime
from typing import Final

from fastapi import Request
from fastapi.responses import Response
from starlette.datastructures import QueryParams

from watchpost import times
from watchpost.audit import service as audit
from watchpost.console.query_numbers import number
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import render
from watchpost.http.deps import request_sessions
from watchpost.listing import PageRequest
from watchpost.people.roles import Action

router = console_router()
PAGE_SIZES: Final = (25, 50, 100, 250)
DEFAULT_SIZE: Final = 50
FILTER_LENGTH: Final = 100


def _day(raw: str | None, *, end: bool) -> tuple[date, datetime] | None:
    """A YYYY-MM-DD day of the URL and its UTC start (`end`: the next day's), or None
    (anything else, or a day whose end is past the year 9999, shows no range, as above)."""
    try:
        day = times.read_day((raw or "").strip()[:10])
        return day, times.day_bounds(day, end=end)
    except times.Unreadable:
        return None


def _text(raw: str | None) -> str:
    printable = "".join(ch if ch.isprintable() else " " for ch in (raw or ""))
    return " ".join(printable.split())[:FILTER_LENGTH]


def _filter(query: QueryParams) -> tuple[audit.Filter, tuple[tuple[str, str], ...]]:
    """The audit filter of the URL, and its parameters as the pages' links keep them. Days
    are UTC days; `until` includes its day."""
    since, until = _day(query.get("since"), end=False), _day(query.get("until"), end=True)
    where = audit.Filter(
        actor=_text(query.get("actor")),
        action=_text(query.get("action")),
        since=None if since is None else since[1],
        until=None if until is None else until[1],
    )
    kept = (
        ("actor", where.actor),
        ("action", where.action),
        ("since", since[0].isoformat() if since else ""),
        ("until", until[0].isoformat() if until else ""),
    )
    return where, tuple((name, value) for name, value in kept if value)


@router.get("/team/audit")
async def audit_page(request: Request, who: Signed) -> Response:
    who.require(Action.MANAGE_PEOPLE)
    query = request.query_params
    size = number(query.get("per_page"), DEFAULT_SIZE, PAGE_SIZES[-1])
    where, kept = _filter(query)
    paging = PageRequest(
        page=number(query.get("page"), 1, 10**9),
        per_page=size,
        base_url=request.url.path,
        other_params=kept,
    )
    db = await request_sessions(request).read()
    page = await audit.page(db, team_id=who.team_id, paging=paging, where=where)
    return render(
        request,
        "team_audit.html",
        viewer=who,
        section="team",
        tab="audit",
        events=page.data,
        links=page.links,
        page_number=paging.page,
        per_page=size,
        sizes=sorted({*PAGE_SIZES, size}),
        filters=dict(kept),
        filtered=bool(kept),
    )
