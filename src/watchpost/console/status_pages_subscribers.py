"""/status-pages/{id}/subscribers: a page's subscribers for the team's admins: the count, a
paged list, a CSV export (streamed: read in batches by id, never the whole table in memory)
and removing one (the API's own service: what was still to be sent to it goes too).

E-mail addresses and webhook URLs are people's data: listing and exporting them need the
same role as removing them (admin); every member sees the count on the page's editor."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator
from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console import status_pages_kit as kit
from watchpost.console.auth import read_db
from watchpost.console.confirming import Asking, delete_confirmed
from watchpost.console.errors import ConsoleRoute
from watchpost.console.web import exact, render
from watchpost.db.queries import team_object, team_rows
from watchpost.listing import paginate
from watchpost.people.roles import Action
from watchpost.status_pages.models import StatusPage
from watchpost.subscriptions import service
from watchpost.subscriptions.endpoints import TYPE
from watchpost.subscriptions.models import StatusPageSubscriber
from watchpost.validation import object_id

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
BATCH: Final = 500
"""Rows the export reads at a time."""
HEADER: Final = ("id", "kind", "address", "confirmed", "confirmed_at", "created_at", "resources")


@router.get("/status-pages/{page_id}/subscribers")
async def subscribers(request: Request, who: kit.Signed, page_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    page = await kit.team_page(db, who, page_id)
    paging = kit.paging_of(request, per_page=50)
    stmt = team_rows(StatusPageSubscriber, team_id=who.team_id, status_page_id=page.id)
    found = await paginate(db, stmt, paging, order_by=StatusPageSubscriber.id)
    count = await db.scalar(
        select(func.count()).where(StatusPageSubscriber.status_page_id == page.id)
    )
    return render(
        request,
        "status_page_subscribers.html",
        viewer=who,
        section=kit.SECTION,
        page=page,
        rows=found.data,
        count=count or 0,
        links=found.links,
        page_number=paging.page,
        notice=kit.notice_for(request),
    )


def _cell(text: str) -> str:
    """A value a spreadsheet does not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _line(row: StatusPageSubscriber) -> str:
    out = io.StringIO()
    csv.writer(out).writerow(
        [
            row.id,
            row.kind,
            _cell(row.address),
            "yes" if row.confirmed_at is not None else "no",
            exact(row.confirmed_at),
            exact(row.created_at),
            " ".join(str(rid) for rid in row.resource_ids or []),
        ]
    )
    return out.getvalue()


@router.get("/status-pages/{page_id}/subscribers.csv")
async def export(request: Request, who: kit.Signed, page_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    page = await kit.team_page(db, who, page_id)
    sessions = request.app.state.ctx.db
    team_id, pid = who.team_id, page.id

    async def lines() -> AsyncIterator[str]:
        yield ",".join(HEADER) + "\r\n"
        after = 0
        while True:
            async with sessions.read_sessions() as read:
                batch = list(
                    await read.scalars(
                        team_rows(StatusPageSubscriber, team_id=team_id, status_page_id=pid)
                        .where(StatusPageSubscriber.id > after)
                        .order_by(StatusPageSubscriber.id)
                        .limit(BATCH)
                    )
                )
            if not batch:
                return
            yield "".join(_line(row) for row in batch)
            after = batch[-1].id

    name = f"subscribers-{page.subdomain}.csv"
    return StreamingResponse(
        lines(),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": "no-store",
        },
    )


@router.post("/status-pages/{page_id}/subscribers/{subscriber_id}/delete")
async def remove(request: Request, who: kit.Signed, page_id: str, subscriber_id: str) -> Response:
    async def find(db: AsyncSession) -> tuple[StatusPage, StatusPageSubscriber]:
        page = await kit.team_page(db, who, page_id, lock=True)
        row = await team_object(
            db,
            StatusPageSubscriber,
            TYPE,
            team_id=who.team_id,
            object_id=object_id(subscriber_id, TYPE),
            status_page_id=page.id,
        )
        return page, row

    async def removed(db: AsyncSession, found: tuple[StatusPage, StatusPageSubscriber]) -> None:
        page, row = found
        subject = f"{page.company_name}: {row.kind} subscriber {row.id}"
        await kit.audit(request, db, who, "status_page_subscriber.removed", (TYPE, row.id, subject))
        await service.remove(db, row.id)

    return await delete_confirmed(
        request,
        who,
        kit.SECTION,
        find=find,
        ask=lambda found: Asking(
            title="Remove a subscriber",
            question=f"Remove the subscriber {found[1].address}?",
            detail="Nothing more is sent to it; it can sign up again on the public page.",
            action=f"/status-pages/{found[0].id}/subscribers/{found[1].id}/delete",
            button="Remove the subscriber",
            back=f"/status-pages/{found[0].id}/subscribers",
        ),
        remove=removed,
        done=lambda found: f"/status-pages/{found[0].id}/subscribers?done=removed",
    )
