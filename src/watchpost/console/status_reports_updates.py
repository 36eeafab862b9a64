"""/status-pages/{id}/reports/{id}/updates/{id}: one status update of a report, its message
edited or the update deleted (asked first), through the API's own `reports.change_update` /
`reports.delete_update` (the report's state follows its updates there) in one transaction
with the audit entry. Responders may, as they may post one; another team's is a 404."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.auth import Viewer, permitted_form, read_db
from watchpost.console.confirming import Asking, delete_confirmed
from watchpost.console.errors import ConsoleRoute
from watchpost.console.form_kit import stored_or_again
from watchpost.console.forms import field_errors
from watchpost.console.status_pages_kit import SECTION, Signed, audit, team_page
from watchpost.console.web import form_page
from watchpost.errors import InvalidRequest
from watchpost.people.roles import Action
from watchpost.problems import parse
from watchpost.status_pages import reports
from watchpost.status_pages.models import StatusPage, StatusReport, StatusUpdate
from watchpost.status_pages.report_schemas import UpdateChange
from watchpost.validation import object_id

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
PATH = "/status-pages/{page_id}/reports/{report_id}/updates/{update_id}"


Found = tuple[StatusPage, StatusReport, StatusUpdate]
"""A page, its report and the report's update."""


async def _found(
    db: AsyncSession, who: Viewer, page_id: str, report_id: str, update_id: str, *, lock: bool
) -> Found:
    """The team's page, its report and the report's update (else a 404), as the API finds them."""
    page = await team_page(db, who, page_id, lock=lock)
    report = await reports.get_report(
        db, team_id=page.team_id, page_id=page.id, report_id=object_id(report_id, reports.REPORT)
    )
    update = await reports.get_update(
        db, report=report, update_id=object_id(update_id, reports.UPDATE)
    )
    return page, report, update


def _form(
    request: Request,
    who: Viewer,
    found: tuple[StatusPage, StatusReport, StatusUpdate],
    *,
    message: str,
    notify: bool,
    errors: dict[str, str] | None = None,
) -> Response:
    page, report, update = found
    return form_page(
        request,
        "status_update_form.html",
        who,
        errors=errors,
        section=SECTION,
        page=page,
        report=report,
        update=update,
        message=message,
        notify=notify,
    )


def _back_to(page: StatusPage, report: StatusReport, done: str) -> str:
    return f"/status-pages/{page.id}/reports/{report.id}?done={done}"


async def _audit(
    request: Request, db: AsyncSession, who: Viewer, change: str, found: Found
) -> None:
    """The audit entry `status_update.{change}` (its subject the report)."""
    page, report, update = found
    subject = (reports.REPORT, report.id, f"{page.company_name}: {report.title}")
    await audit(
        request, db, who, f"status_update.{change}", subject, {"status_update_id": update.id}
    )


@router.get(PATH)
async def edit_update(
    request: Request, who: Signed, page_id: str, report_id: str, update_id: str
) -> Response:
    db = await read_db(request, who, Action.RESPOND)
    found = await _found(db, who, page_id, report_id, update_id, lock=False)
    return _form(request, who, found, message=found[2].message, notify=found[2].notify_subscribers)


@router.post(PATH)
async def save_update(
    request: Request, who: Signed, page_id: str, report_id: str, update_id: str
) -> Response:
    form = await permitted_form(request, who, Action.RESPOND)
    message = str(form.get("message", ""))
    notify = form.get("notify_subscribers") is not None

    async def store(db: AsyncSession) -> str:
        page, report, update = await _found(db, who, page_id, report_id, update_id, lock=True)
        data = parse(UpdateChange, {"message": message, "notify_subscribers": notify})
        sent = set(data.model_fields_set)
        now = request.app.state.ctx.clock.now()
        await reports.change_update(
            db, page=page, report=report, update=update, data=data, sent=sent, now=now
        )
        await _audit(request, db, who, "updated", (page, report, update))
        return _back_to(page, report, "update_saved")

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        found = await _found(db, who, page_id, report_id, update_id, lock=False)
        errors = field_errors(exc.problems, ("message", "notify_subscribers"))
        return _form(request, who, found, message=message, notify=notify, errors=errors)

    return await stored_or_again(request, store, again)


@router.post(PATH + "/delete")
async def delete_update(
    request: Request, who: Signed, page_id: str, report_id: str, update_id: str
) -> Response:
    async def remove(db: AsyncSession, found: Found) -> None:
        _, report, update = found
        await _audit(request, db, who, "deleted", found)
        now = request.app.state.ctx.clock.now()
        await reports.delete_update(db, report=report, update=update, now=now)

    def ask(found: Found) -> Asking:
        page, report, update = found
        base = f"/status-pages/{page.id}/reports/{report.id}"
        return Asking(
            title="Delete this status update?",
            question="Delete this status update?",
            detail="The report's status then follows its remaining updates. "
            "Subscribers told of it are not told again.",
            action=f"{base}/updates/{update.id}/delete",
            button="Delete the update",
            back=base,
        )

    return await delete_confirmed(
        request,
        who,
        SECTION,
        find=lambda db: _found(db, who, page_id, report_id, update_id, lock=True),
        ask=ask,
        remove=remove,
        done=lambda found: _back_to(found[0], found[1], "update_deleted"),
        needs=Action.RESPOND,
    )
