"""Routes of /api/v2/status-pages/{id}/status-reports and their /status-updates, and how
reports and updates appear in the API."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.http.body import JsonObject
from watchpost.http.crud import CHILD_LIST_ERRORS, Routes
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, no_content, single
from watchpost.http.pagination import Paging
from watchpost.listing import Resource, resource
from watchpost.problems import parse
from watchpost.status_pages import announcements, pages, report_states, reports
from watchpost.status_pages.models import StatusReport, StatusUpdate
from watchpost.status_pages.report_schemas import (
    REPORT_NOT_NULL,
    UPDATE_NOT_NULL,
    ReportAttributes,
    ReportCreate,
    ReportUpdate,
    UpdateAttributes,
    UpdateChange,
    UpdateCreate,
)
from watchpost.validation import object_id

router = APIRouter(prefix="/api/v2/status-pages", tags=["status reports"])

REPORTS = "/{status_page_id}/status-reports"
REPORT = REPORTS + "/{status_report_id}"
UPDATES = REPORT + "/status-updates"
UPDATE = UPDATES + "/{status_update_id}"


# ------------------------------------------------------------------------ documents


def _affected_out(affected: Sequence[dict[str, Any]], live: set[int]) -> list[dict[str, Any]]:
    """As the hosted API shows them (ids as strings), without resources deleted since."""
    return [
        {
            "status_page_resource_id": str(entry["status_page_resource_id"]),
            "status": entry["status"],
        }
        for entry in affected
        if int(entry["status_page_resource_id"]) in live
    ]


def update_document(update: StatusUpdate, live: set[int]) -> Resource:
    return resource(
        reports.UPDATE,
        update.id,
        {
            "message": update.message,
            "published_at": isoformat_ms(update.published_at),
            "published_at_timezone": "UTC",
            "notify_subscribers": update.notify_subscribers,
            "status_report_id": update.status_report_id,
            "affected_resources": _affected_out(update.affected_resources, live),
        },
    )


def report_document(
    report: StatusReport, updates: Sequence[StatusUpdate], live: set[int]
) -> Resource:
    affected = _affected_out(report.affected_resources, live)
    return resource(
        reports.REPORT,
        report.id,
        {
            "title": report.title,
            "report_type": report.report_type,
            "starts_at": isoformat_ms(report.starts_at),
            "ends_at": None if report.ends_at is None else isoformat_ms(report.ends_at),
            "status_page_id": report.status_page_id,
            "affected_resources": affected,
            "aggregate_state": report_states.aggregate_state(affected),
        },
        {"status_updates": {"data": [{"id": str(u.id), "type": reports.UPDATE} for u in updates]}},
    )


async def _report_response(
    db: AsyncSession, report: StatusReport, *, status: int = 200
) -> Response:
    """The report with its updates in `included`, oldest first."""
    live = await reports.live_resource_ids(db, report.status_page_id)
    updates = await reports.updates_of(db, [report.id])
    return single(
        report_document(report, updates, live),
        status=status,
        included=[update_document(u, live) for u in updates],
    )


async def _page_and_report(
    db: AsyncSession, caller: Any, status_page_id: str, status_report_id: str, *, lock: bool
) -> tuple[Any, StatusReport]:
    pid = object_id(status_page_id, pages.PAGE)
    page = await pages.get_page(db, team_id=caller.team_id, page_id=pid, lock=lock)
    report = await reports.get_report(
        db,
        team_id=caller.team_id,
        page_id=pid,
        report_id=object_id(status_report_id, reports.REPORT),
    )
    return page, report


async def _update_of(db: AsyncSession, report: StatusReport, status_update_id: str) -> StatusUpdate:
    """The report's status update a path id names (404 when it names none)."""
    return await reports.get_update(
        db, report=report, update_id=object_id(status_update_id, reports.UPDATE)
    )


# -------------------------------------------------------------------------- reports


report_routes = Routes(router, ReportAttributes)


@report_routes.create(
    REPORTS,
    summary="Create a status report and its first status update",
    description="`affected_resources` name resources of this page; their `status` is "
    "`maintenance` in a maintenance report, else `resolved`, `degraded` or `downtime`. A "
    "maintenance report needs `ends_at`. `message`, `published_at` and `notify_subscribers` "
    f"make the first status update. A page holds at most {reports.MAX_REPORTS:,} reports.",
    body=ReportCreate,
)
async def create_report(
    status_page_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    async with db.begin():
        page = await pages.get_page(db, team_id=caller.team_id, page_id=pid, lock=True)
        data = parse(ReportCreate, body)
        now = ctx.clock.now()
        report = await reports.create_report(db, page=page, data=data, now=now)
        first = (await reports.updates_of(db, [report.id]))[0]
        await announcements.report_created(db, page=page, report=report, update=first, now=now)
        return await _report_response(db, report, status=201)


@report_routes.list(
    REPORTS,
    summary="List a status page's status reports",
    description="Each report names its status updates; a single GET includes them.",
    errors=CHILD_LIST_ERRORS,
)
async def list_reports(status_page_id: str, caller: Caller, db: ReadDb, paging: Paging) -> Response:
    pid = object_id(status_page_id, pages.PAGE)
    await pages.get_page(db, team_id=caller.team_id, page_id=pid)
    found = await reports.list_reports(db, team_id=caller.team_id, page_id=pid, paging=paging)
    live = await reports.live_resource_ids(db, pid)
    by_report: dict[int, list[StatusUpdate]] = {}
    for update in await reports.updates_of(db, [r.id for r in found.data]):
        by_report.setdefault(update.status_report_id, []).append(update)
    return listing(
        (report_document(r, by_report.get(r.id, []), live) for r in found.data), found.links
    )


@report_routes.get(REPORT, summary="Get a status report and its status updates")
async def get_report(
    status_page_id: str, status_report_id: str, caller: Caller, db: ReadDb
) -> Response:
    _, report = await _page_and_report(db, caller, status_page_id, status_report_id, lock=False)
    return await _report_response(db, report)


@report_routes.update(
    REPORT,
    summary="Update a status report",
    description="`affected_resources` replace the newest status update's (the report's "
    "current ones). `report_type` cannot change.",
    body=ReportUpdate,
    not_null=REPORT_NOT_NULL,
)
async def update_report(
    status_page_id: str,
    status_report_id: str,
    body: JsonObject,
    caller: Caller,
    ctx: Context,
    db: WriteDb,
) -> Response:
    async with db.begin():
        page, report = await _page_and_report(
            db, caller, status_page_id, status_report_id, lock=True
        )
        data = parse(ReportUpdate, body)
        await reports.update_report(
            db,
            page=page,
            report=report,
            data=data,
            sent=set(data.model_fields_set),
            now=ctx.clock.now(),
        )
        await announcements.report_changed(db, report=report)
        return await _report_response(db, report)


@report_routes.delete(REPORT, summary="Delete a status report and its status updates")
async def delete_report(
    status_page_id: str, status_report_id: str, caller: Caller, db: WriteDb
) -> Response:
    async with db.begin():
        _, report = await _page_and_report(db, caller, status_page_id, status_report_id, lock=True)
        await reports.delete_report(db, report=report)
    return no_content()


# -------------------------------------------------------------------------- updates


update_routes = Routes(router, UpdateAttributes)


@update_routes.create(
    UPDATES,
    summary="Add a status update to a status report",
    description="Its `affected_resources` become the report's current ones when it is the "
    f"newest update. A report holds at most {reports.MAX_UPDATES} updates.",
    body=UpdateCreate,
)
async def create_update(
    status_page_id: str,
    status_report_id: str,
    body: JsonObject,
    caller: Caller,
    ctx: Context,
    db: WriteDb,
) -> Response:
    async with db.begin():
        page, report = await _page_and_report(
            db, caller, status_page_id, status_report_id, lock=True
        )
        data = parse(UpdateCreate, body)
        now, was_resolved = ctx.clock.now(), report.resolved
        update = await reports.create_update(db, page=page, report=report, data=data, now=now)
        await announcements.update_published(
            db, page=page, report=report, update=update, was_resolved=was_resolved, now=now
        )
        live = await reports.live_resource_ids(db, page.id)
    return single(update_document(update, live), status=201)


@update_routes.list(
    UPDATES, summary="List a status report's status updates", errors=CHILD_LIST_ERRORS
)
async def list_updates(
    status_page_id: str, status_report_id: str, caller: Caller, db: ReadDb, paging: Paging
) -> Response:
    _, report = await _page_and_report(db, caller, status_page_id, status_report_id, lock=False)
    found = await reports.list_updates(db, report=report, paging=paging)
    live = await reports.live_resource_ids(db, report.status_page_id)
    return listing((update_document(u, live) for u in found.data), found.links)


@update_routes.get(UPDATE, summary="Get a status update")
async def get_update(
    status_page_id: str, status_report_id: str, status_update_id: str, caller: Caller, db: ReadDb
) -> Response:
    _, report = await _page_and_report(db, caller, status_page_id, status_report_id, lock=False)
    update = await _update_of(db, report, status_update_id)
    live = await reports.live_resource_ids(db, report.status_page_id)
    return single(update_document(update, live))


@update_routes.update(
    UPDATE, summary="Update a status update", body=UpdateChange, not_null=UPDATE_NOT_NULL
)
async def change_update(
    status_page_id: str,
    status_report_id: str,
    status_update_id: str,
    body: JsonObject,
    caller: Caller,
    ctx: Context,
    db: WriteDb,
) -> Response:
    async with db.begin():
        page, report = await _page_and_report(
            db, caller, status_page_id, status_report_id, lock=True
        )
        update = await _update_of(db, report, status_update_id)
        data = parse(UpdateChange, body)
        await reports.change_update(
            db,
            page=page,
            report=report,
            update=update,
            data=data,
            sent=set(data.model_fields_set),
            now=ctx.clock.now(),
        )
        live = await reports.live_resource_ids(db, page.id)
    return single(update_document(update, live))


@update_routes.delete(UPDATE, summary="Delete a status update")
async def delete_update(
    status_page_id: str,
    status_report_id: str,
    status_update_id: str,
    caller: Caller,
    ctx: Context,
    db: WriteDb,
) -> Response:
    async with db.begin():
        _, report = await _page_and_report(db, caller, status_page_id, status_report_id, lock=True)
        update = await _update_of(db, report, status_update_id)
        await reports.delete_update(db, report=report, update=update, now=ctx.clock.now())
    return no_content()
