"""Routes of /api/v2/status-pages/{id}/status-reports and their /status-updates, and how
reports and updates appear in the API."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypedDict

from fastapi import APIRouter
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.http.children import Children, PathIds, Within
from watchpost.http.crud import Routes
from watchpost.http.envelope import listing, single
from watchpost.listing import PageRequest, Resource, resource
from watchpost.status_pages import announcements, pages, report_states, reports
from watchpost.status_pages.models import StatusPage, StatusReport, StatusUpdate
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
from watchpost.teams.service import Principal
from watchpost.validation import object_id

router = APIRouter(prefix="/api/v2/status-pages", tags=["status reports"])

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


# ------------------------------------------------------------- a page's children


OnPage = Within[StatusPage]
"""A route of a status page's children at work within the page."""


class PageKeys(TypedDict):
    """What finds a status page's children: the caller's team and the page."""

    team_id: int
    page_id: int


def page_keys(at: OnPage) -> PageKeys:
    return {"team_id": at.caller.team_id, "page_id": at.parent.id}


class PageChildren:
    """What a status page's children (http/children.py) share: their parent, the page."""

    async def parent(
        self, db: AsyncSession, caller: Principal, ids: PathIds, now: datetime, *, lock: bool
    ) -> StatusPage:
        page_id = object_id(ids[0], pages.PAGE)
        return await pages.get_page(db, team_id=caller.team_id, page_id=page_id, lock=lock)


# -------------------------------------------------------------------------- reports


class Reports(PageChildren):
    """A status page's status reports, each shown with its updates in `included`."""

    PATH, KEY = "/{status_page_id}/status-reports", "status_report_id"
    NOUN, PLURAL, TYPE = "report", "reports", reports.REPORT

    async def get(self, at: OnPage, report_id: int, /) -> StatusReport:
        return await reports.get_report(at.db, **page_keys(at), report_id=report_id)

    async def answer(self, at: OnPage, report: StatusReport, status: int, /) -> Response:
        live = await reports.live_resource_ids(at.db, report.status_page_id)
        updates = await reports.updates_of(at.db, [report.id])
        return single(
            report_document(report, updates, live),
            status=status,
            included=[update_document(u, live) for u in updates],
        )

    async def listed(self, at: OnPage, paging: PageRequest) -> Response:
        found = await reports.list_reports(at.db, **page_keys(at), paging=paging)
        live = await reports.live_resource_ids(at.db, at.parent.id)
        by_report: dict[int, list[StatusUpdate]] = {}
        for update in await reports.updates_of(at.db, [r.id for r in found.data]):
            by_report.setdefault(update.status_report_id, []).append(update)
        return listing(
            (report_document(r, by_report.get(r.id, []), live) for r in found.data), found.links
        )

    async def make(self, at: OnPage, data: ReportCreate) -> StatusReport:
        page, now = at.parent, at.now
        report = await reports.create_report(at.db, page=page, data=data, now=now)
        first = (await reports.updates_of(at.db, [report.id]))[0]
        await announcements.report_created(at.db, page=page, report=report, update=first, now=now)
        return report

    async def change(self, at: OnPage, report: StatusReport, data: ReportUpdate) -> None:
        sent = set(data.model_fields_set)
        await reports.update_report(
            at.db, page=at.parent, report=report, data=data, sent=sent, now=at.now
        )
        await announcements.report_changed(at.db, report=report)

    async def remove(self, at: OnPage, report: StatusReport) -> None:
        await reports.delete_report(at.db, report=report)


REPORTS = Reports()
report_routes = Children(Routes(router, ReportAttributes), REPORTS)
report_routes.create(
    ReportCreate,
    summary="Create a status report and its first status update",
    description="`affected_resources` name resources of this page; their `status` is "
    "`maintenance` in a maintenance report, else `resolved`, `degraded` or `downtime`. A "
    "maintenance report needs `ends_at`. `message`, `published_at` and `notify_subscribers` "
    f"make the first status update. A page holds at most {reports.MAX_REPORTS:,} reports.",
)
report_routes.list(
    REPORTS.listed,
    summary="List a status page's status reports",
    description="Each report names its status updates; a single GET includes them.",
)
report_routes.get(summary="Get a status report and its status updates")
report_routes.update(
    ReportUpdate,
    not_null=REPORT_NOT_NULL,
    summary="Update a status report",
    description="`affected_resources` replace the newest status update's (the report's "
    "current ones). `report_type` cannot change.",
)
report_routes.delete(summary="Delete a status report and its status updates")


# -------------------------------------------------------------------------- updates


OnReport = Within[tuple[StatusPage, StatusReport]]
"""A status update's route at work within its report (and the report's page)."""


class Updates:
    """A status report's status updates."""

    PATH, KEY = Reports.PATH + "/{status_report_id}/status-updates", "status_update_id"
    NOUN, PLURAL, TYPE = "update", "updates", reports.UPDATE

    async def parent(
        self, db: AsyncSession, caller: Principal, ids: PathIds, now: datetime, *, lock: bool
    ) -> tuple[StatusPage, StatusReport]:
        page = await REPORTS.parent(db, caller, ids, now, lock=lock)
        at = Within(db, caller, page, now)
        return page, await REPORTS.get(at, object_id(ids[1], reports.REPORT))

    async def get(self, at: OnReport, update_id: int, /) -> StatusUpdate:
        return await reports.get_update(at.db, report=at.parent[1], update_id=update_id)

    async def answer(self, at: OnReport, update: StatusUpdate, status: int, /) -> Response:
        live = await reports.live_resource_ids(at.db, at.parent[0].id)
        return single(update_document(update, live), status=status)

    async def listed(self, at: OnReport, paging: PageRequest) -> Response:
        report = at.parent[1]
        found = await reports.list_updates(at.db, report=report, paging=paging)
        live = await reports.live_resource_ids(at.db, report.status_page_id)
        return listing((update_document(u, live) for u in found.data), found.links)

    async def make(self, at: OnReport, data: UpdateCreate) -> StatusUpdate:
        (page, report), now, was_resolved = at.parent, at.now, at.parent[1].resolved
        update = await reports.create_update(at.db, page=page, report=report, data=data, now=now)
        await announcements.update_published(
            at.db, page=page, report=report, update=update, was_resolved=was_resolved, now=now
        )
        return update

    async def change(self, at: OnReport, update: StatusUpdate, data: UpdateChange) -> None:
        page, report = at.parent
        await reports.change_update(
            at.db,
            page=page,
            report=report,
            update=update,
            data=data,
            sent=set(data.model_fields_set),
            now=at.now,
        )

    async def remove(self, at: OnReport, update: StatusUpdate) -> None:
        await reports.delete_update(at.db, report=at.parent[1], update=update, now=at.now)


UPDATES = Updates()
update_routes = Children(Routes(router, UpdateAttributes), UPDATES)
update_routes.create(
    UpdateCreate,
    summary="Add a status update to a status report",
    description="Its `affected_resources` become the report's current ones when it is the "
    f"newest update. A report holds at most {reports.MAX_UPDATES} updates.",
)
update_routes.list(UPDATES.listed, summary="List a status report's status updates")
update_routes.get(summary="Get a status update")
update_routes.update(
    UpdateChange,
    not_null=UPDATE_NOT_NULL,
    name="change_update",
    summary="Update a status update",
)
update_routes.delete(summary="Delete a status update")
