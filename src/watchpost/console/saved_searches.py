"""Saved searches of the log explorer, per team: the current query, source and time range
saved under a name (POST /logs/saved), listed on /logs (a link re-opens the search) and
deleted (POST /logs/saved/{id}/delete). Saving and deleting need Action.RESPOND (responders
and up: people who investigate); any member reads them. Each change has an audit entry.
The table is migration 0035's."""

from __future__ import annotations

from typing import Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.account import audit
from watchpost.console.auth import permitted_form, write_db
from watchpost.console.signed_routes import Signed, console_router
from watchpost.db.queries import team_object
from watchpost.logsearch.models import SavedSearch
from watchpost.people.roles import Action
from watchpost.validation import object_id

router = console_router()
NAME_LENGTH: Final = 255
MAX_SHOWN: Final = 100
"""Saved searches listed on /logs (the newest)."""


async def saved_of(db: AsyncSession, team_id: int) -> list[SavedSearch]:
    rows = await db.scalars(
        select(SavedSearch)
        .where(SavedSearch.team_id == team_id)
        .order_by(SavedSearch.name)
        .limit(MAX_SHOWN)
    )
    return list(rows)


def _text(form: object, name: str, limit: int) -> str:
    return str(getattr(form, "get")(name, "") or "")[:limit]  # noqa: B009


@router.post("/logs/saved")
async def save(request: Request, who: Signed) -> Response:
    form = await permitted_form(request, who, Action.RESPOND)
    from watchpost.console.logs import explorer_page  # the page shows the form's errors

    name = " ".join(str(form.get("name", "")).split())
    fields = {
        "q": _text(form, "q", 2000),
        "source": _text(form, "source", 40),
        "range": _text(form, "range", 16),
        "from": _text(form, "from", 40),
        "to": _text(form, "to", 40),
    }
    problem = None
    if not name:
        problem = "Name the search"
    elif len(name) > NAME_LENGTH:
        problem = "Use a shorter name"
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    link = ""
    if problem is None:
        async with db.begin():
            row = SavedSearch(
                team_id=who.team_id,
                name=name,
                query=fields["q"],
                source=fields["source"],
                time_range=fields["range"],
                range_from=fields["from"],
                range_to=fields["to"],
                created_by_id=who.user.id,
                created_at=now,
            )
            try:
                # the unique (team, name) decides, also between two saves at the same instant
                async with db.begin_nested():
                    db.add(row)
            except IntegrityError:
                problem = "A saved search has this name: choose another"
            else:
                await audit(
                    db,
                    request,
                    who,
                    "saved_search.created",
                    now,
                    ("saved_search", row.id, name),
                    {"query": fields["q"], "range": fields["range"]},
                )
                link = row.link
    if problem is not None:
        return await explorer_page(
            request, who, fields, status=422, db=db, save_errors={"save-name": problem}, typed=name
        )
    return RedirectResponse(link + ("&" if "?" in link else "?") + "saved=1", status_code=303)


@router.post("/logs/saved/{search_id}/delete")
async def delete(request: Request, who: Signed, search_id: str) -> Response:
    await permitted_form(request, who, Action.RESPOND)
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        found = object_id(search_id, "saved search")
        row = await team_object(
            db, SavedSearch, "saved search", team_id=who.team_id, object_id=found
        )
        await audit(
            db, request, who, "saved_search.deleted", now, ("saved_search", row.id, row.name)
        )
        await db.delete(row)
    return RedirectResponse("/logs?done=deleted", status_code=303)
