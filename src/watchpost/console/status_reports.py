"""/status-pages/{id}/reports: what a page tells its visitors by hand. A report (an incident
told by hand) names the page's affected resources with their status and a first message;
updates follow; Resolve posts a last update with every affected resource resolved. A
scheduled maintenance is a report of type maintenance with its window; End now closes the
window. All through the API's own service (status_pages/reports.py) and its announcements
to subscribers (announcements.py), with an audit entry.

Posting needs the responder's role (Action.RESPOND): telling customers what happens is part
of answering an incident, at 3 a.m., by whoever is on call."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData

from watchpost.console.auth import Viewer, permitted_form, read_db
from watchpost.console.errors import ConsoleRoute
from watchpost.console.form_kit import stored_or_again
from watchpost.console.forms import field_errors
from watchpost.console.status_pages_kit import (
    SECTION,
    Signed,
    audit,
    notice_for,
    paging_of,
    team_page,
)
from watchpost.console.web import form_page, render
from watchpost.errors import InvalidRequest
from watchpost.listing import paginate
from watchpost.people.roles import Action
from watchpost.problems import parse
from watchpost.public_pages.page_data import resource_names
from watchpost.status_pages import announcements, reports
from watchpost.status_pages.models import StatusPage, StatusReport
from watchpost.status_pages.report_schemas import ReportCreate, ReportUpdate, UpdateCreate
from watchpost.status_pages.report_states import RESOLVED, report_state
from watchpost.validation import object_id

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
_SECOND: Final = timedelta(seconds=1)
MAINTENANCE: Final = "maintenance"
STATUSES: Final = {
    "manual": (("downtime", "Down"), ("degraded", "Degraded"), ("resolved", "Resolved")),
    MAINTENANCE: ((MAINTENANCE, "Under maintenance"),),
}
STATE_WORDS: Final = {
    "scheduled": ("pending", "Scheduled"),
    "in_progress": ("down", "In progress"),
    "resolved": ("up", "Resolved"),
    "completed": ("up", "Completed"),
}
FIELDS: Final = ("title", "message", "starts_at", "ends_at", "affected_resources")
TYPE_WORDS: Final = {"manual": "Incident report", MAINTENANCE: "Scheduled maintenance"}


def _kind(value: object) -> str:
    return MAINTENANCE if value == MAINTENANCE else "manual"


def _affected(form: FormData, names: dict[int, str]) -> list[dict[str, Any]]:
    """The statuses chosen per resource (`affected-<id>`), in page order."""
    found = []
    for rid in names:
        status = str(form.get(f"affected-{rid}", ""))
        if status:
            found.append({"status_page_resource_id": str(rid), "status": status})
    return found


def _statuses(affected: list[dict[str, Any]]) -> dict[int, str]:
    """Affected resources as the form shows them: resource id → status."""
    return {int(a["status_page_resource_id"]): a["status"] for a in affected}


def _typed(form: FormData, names: tuple[str, ...]) -> dict[str, Any]:
    """What was typed in the named fields, and whether to notify the subscribers."""
    typed: dict[str, Any] = {name: str(form.get(name, "")) for name in names}
    typed["notify"] = form.get("notify_subscribers") is not None
    return typed


def _subject(page: StatusPage, report: StatusReport) -> tuple[str, int, str]:
    """The report as its audit entries name it."""
    return reports.REPORT, report.id, f"{page.company_name}: {report.title}"


def _local(moment: Any) -> str:
    """A time as a datetime-local input holds it (UTC)."""
    return "" if moment is None else moment.strftime("%Y-%m-%dT%H:%M")


async def _names(db: AsyncSession, page: StatusPage) -> dict[int, str]:
    return await resource_names(db, page)


# ---------------------------------------------------------------------- the list


@router.get("/status-pages/{page_id}/reports")
async def list_reports(request: Request, who: Signed, page_id: str) -> Response:
    db = await read_db(request, who, Action.READ)
    page = await team_page(db, who, page_id)
    paging = paging_of(request)
    stmt = reports.reports_of(team_id=who.team_id, page_id=page.id)
    found = await paginate(db, stmt, paging, order_by=StatusReport.id.desc())
    now = request.app.state.ctx.clock.now()
    rows = [(r, STATE_WORDS.get(report_state(r, now), ("pending", "?"))) for r in found.data]
    return render(
        request,
        "status_reports.html",
        viewer=who,
        section=SECTION,
        page=page,
        rows=rows,
        types=TYPE_WORDS,
        links=found.links,
        page_number=paging.page,
        notice=notice_for(request),
    )


# ---------------------------------------------------------------------- a new one


def _new_form(
    request: Request,
    who: Viewer,
    page: StatusPage,
    names: dict[int, str],
    *,
    kind: str,
    typed: dict[str, Any],
    errors: dict[str, str] | None = None,
) -> Response:
    return form_page(
        request,
        "status_report_new.html",
        who,
        errors=errors,
        section=SECTION,
        page=page,
        kind=kind,
        title=f"New {TYPE_WORDS[kind].lower()} on {page.company_name}",
        names=names,
        statuses=STATUSES[kind],
        typed=typed,
    )


@router.get("/status-pages/{page_id}/reports/new")
async def new_report(request: Request, who: Signed, page_id: str) -> Response:
    db = await read_db(request, who, Action.RESPOND)
    page = await team_page(db, who, page_id)
    kind = _kind(request.query_params.get("type"))
    now = request.app.state.ctx.clock.now()
    typed: dict[str, Any] = {
        "starts_at": _local(now) if kind == MAINTENANCE else "",
        "notify": True,
    }
    return _new_form(request, who, page, await _names(db, page), kind=kind, typed=typed)


@router.post("/status-pages/{page_id}/reports/new")
async def create_report(request: Request, who: Signed, page_id: str) -> Response:
    form = await permitted_form(request, who, Action.RESPOND)
    kind = _kind(form.get("report_type"))
    typed = _typed(form, ("title", "message", "starts_at", "ends_at"))
    now = request.app.state.ctx.clock.now()

    async def store(db: AsyncSession) -> str:
        page = await team_page(db, who, page_id, lock=True)
        names = await _names(db, page)
        affected = _affected(form, names)
        typed["affected"] = _statuses(affected)
        body: dict[str, Any] = {
            "title": typed["title"].strip(),
            "message": typed["message"],
            "report_type": kind,
            "notify_subscribers": typed["notify"],
            "affected_resources": affected,
        }
        for name in ("starts_at", "ends_at"):
            if typed[name].strip():
                body[name] = typed[name].strip()
        problems = []
        if not body["title"]:
            problems.append(("title", "Give the report a title"))
        if not affected:
            problems.append(("affected_resources", "Choose the status of at least one resource"))
        if problems:
            raise InvalidRequest(problems)
        data = parse(ReportCreate, body)
        report = await reports.create_report(db, page=page, data=data, now=now)
        first = (await reports.updates_of(db, [report.id]))[0]
        await announcements.report_created(db, page=page, report=report, update=first, now=now)
        await audit(
            request,
            db,
            who,
            "status_report.created",
            _subject(page, report),
            {"report_type": kind},
        )
        return f"/status-pages/{page.id}/reports/{report.id}?done=report_posted"

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        page = await team_page(db, who, page_id)
        names = await _names(db, page)
        errors = field_errors(exc.problems, FIELDS)
        return _new_form(request, who, page, names, kind=kind, typed=typed, errors=errors)

    return await stored_or_again(request, store, again)


# ---------------------------------------------------------------------- one report


async def _report(db: AsyncSession, page: StatusPage, report_id: str) -> StatusReport:
    return await reports.get_report(
        db,
        team_id=page.team_id,
        page_id=page.id,
        report_id=object_id(report_id, reports.REPORT),
    )


async def _report_page(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    page: StatusPage,
    report: StatusReport,
    *,
    typed: dict[str, Any] | None = None,
    errors: dict[str, str] | None = None,
) -> Response:
    names = await _names(db, page)
    updates = await reports.updates_of(db, [report.id])
    now = request.app.state.ctx.clock.now()
    return form_page(
        request,
        "status_report.html",
        who,
        errors=errors,
        section=SECTION,
        page=page,
        report=report,
        kind_words=TYPE_WORDS.get(report.report_type, report.report_type),
        state=STATE_WORDS.get(report_state(report, now), ("pending", "?")),
        updates=list(reversed(updates)),
        names=names,
        statuses=STATUSES[_kind(report.report_type)],
        typed=typed or {"affected": _statuses(report.affected_resources), "notify": True},
        open=report_state(report, now) not in ("resolved", "completed"),
        notice=notice_for(request),
    )


@router.get("/status-pages/{page_id}/reports/{report_id}")
async def show_report(request: Request, who: Signed, page_id: str, report_id: str) -> Response:
    db = await read_db(request, who, Action.READ)
    page = await team_page(db, who, page_id)
    return await _report_page(request, who, db, page, await _report(db, page, report_id))


async def _post_update(
    request: Request,
    who: Viewer,
    page_id: str,
    report_id: str,
    form: FormData,
    *,
    resolve: bool,
) -> Response:
    typed = _typed(form, ("message",))
    now = request.app.state.ctx.clock.now()

    async def store(db: AsyncSession) -> str:
        page = await team_page(db, who, page_id, lock=True)
        report = await _report(db, page, report_id)
        names = await _names(db, page)
        if resolve and report.report_type == MAINTENANCE:
            await _end_maintenance(request, who, db, page, report, now)
            done = "ended"
        else:
            if resolve:
                affected = [
                    {
                        "status_page_resource_id": str(a["status_page_resource_id"]),
                        "status": RESOLVED,
                    }
                    for a in report.affected_resources
                ]
            else:
                affected = _affected(form, names)
            typed["affected"] = _statuses(affected)
            if not affected:
                raise InvalidRequest.field(
                    "affected_resources", "Choose the status of at least one resource"
                )
            message = typed["message"] or ("Resolved." if resolve else "")
            data = parse(
                UpdateCreate,
                {
                    "message": message,
                    "notify_subscribers": typed["notify"] or resolve,
                    "affected_resources": affected,
                },
            )
            was_resolved = report.resolved
            update = await reports.create_update(db, page=page, report=report, data=data, now=now)
            await announcements.update_published(
                db, page=page, report=report, update=update, was_resolved=was_resolved, now=now
            )
            await audit(
                request,
                db,
                who,
                "status_report.resolved" if resolve else "status_update.created",
                _subject(page, report),
                {"status_update_id": update.id},
            )
            done = "resolved" if resolve else "update_posted"
        return f"/status-pages/{page.id}/reports/{report.id}?done={done}"

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        page = await team_page(db, who, page_id)
        report = await _report(db, page, report_id)
        errors = field_errors(exc.problems, ("message", "affected_resources"))
        return await _report_page(request, who, db, page, report, typed=typed, errors=errors)

    return await stored_or_again(request, store, again)


async def _end_maintenance(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    page: StatusPage,
    report: StatusReport,
    now: Any,
) -> None:
    """A maintenance ends now (its window is shortened; one not started yet starts and ends
    now, so it is shown as completed)."""
    body: dict[str, Any] = {"ends_at": now.isoformat()}
    if report.starts_at >= now:
        body["starts_at"] = (now.replace(microsecond=0) - _SECOND).isoformat()
    data = parse(ReportUpdate, body)
    await reports.update_report(
        db, page=page, report=report, data=data, sent=set(data.model_fields_set), now=now
    )
    await announcements.report_changed(db, report=report)
    await audit(
        request,
        db,
        who,
        "status_report.ended",
        _subject(page, report),
    )


@router.post("/status-pages/{page_id}/reports/{report_id}/updates")
async def add_update(request: Request, who: Signed, page_id: str, report_id: str) -> Response:
    form = await permitted_form(request, who, Action.RESPOND)
    return await _post_update(request, who, page_id, report_id, form, resolve=False)


@router.post("/status-pages/{page_id}/reports/{report_id}/resolve")
async def resolve(request: Request, who: Signed, page_id: str, report_id: str) -> Response:
    form = await permitted_form(request, who, Action.RESPOND)
    return await _post_update(request, who, page_id, report_id, form, resolve=True)
