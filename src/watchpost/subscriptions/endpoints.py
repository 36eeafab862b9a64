"""The team's view of a page's subscribers: /api/v2/status-pages/{id}/subscribers (list, get,
delete). A Watchpost addition: the hosted API has no such routes."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response
from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms, optional_isoformat_ms
from watchpost.db.queries import team_object, team_rows
from watchpost.http.crud import CHILD_LIST_ERRORS, Routes
from watchpost.http.deps import Caller, ReadDb, WriteDb
from watchpost.http.envelope import listing, no_content, single
from watchpost.http.pagination import Paging
from watchpost.listing import Resource, paginate, resource
from watchpost.status_pages import pages
from watchpost.subscriptions import service
from watchpost.subscriptions.models import StatusPageSubscriber
from watchpost.teams.service import Principal
from watchpost.validation import object_id

TYPE = "status_page_subscriber"
SUBSCRIBERS = "/{status_page_id}/subscribers"
SUBSCRIBER = SUBSCRIBERS + "/{subscriber_id}"

router = APIRouter(prefix="/api/v2/status-pages", tags=["status page subscribers"])


class SubscriberAttributes(BaseModel):
    status_page_id: int
    kind: str = Field(description="email or webhook")
    email: str | None = Field(description="The address of an e-mail subscriber")
    webhook_url: str | None = Field(description="The URL of a webhook subscriber")
    resource_ids: list[str] = Field(description="Resources subscribed to; empty: the page")
    confirmed: bool
    confirmed_at: str | None
    created_at: str


def document(row: StatusPageSubscriber) -> Resource:
    return resource(
        TYPE,
        row.id,
        {
            "status_page_id": row.status_page_id,
            "kind": row.kind,
            "email": row.address if row.kind == service.EMAIL else None,
            "webhook_url": row.address if row.kind == service.WEBHOOK else None,
            "resource_ids": [str(rid) for rid in row.resource_ids],
            "confirmed": row.confirmed_at is not None,
            "confirmed_at": optional_isoformat_ms(row.confirmed_at),
            "created_at": isoformat_ms(row.created_at),
        },
    )


routes = Routes(router, SubscriberAttributes)


async def _page_id(db: AsyncSession, caller: Principal, status_page_id: str) -> int:
    """The id of the caller's status page the path names (else 404)."""
    pid = object_id(status_page_id, pages.PAGE)
    await pages.get_page(db, team_id=caller.team_id, page_id=pid)
    return pid


@routes.list(
    SUBSCRIBERS,
    summary="List a status page's subscribers",
    description="Confirmed and not yet confirmed, oldest first.",
    errors=CHILD_LIST_ERRORS,
)
async def list_subscribers(
    status_page_id: str, caller: Caller, db: ReadDb, paging: Paging
) -> Response:
    pid = await _page_id(db, caller, status_page_id)
    stmt = team_rows(StatusPageSubscriber, team_id=caller.team_id, status_page_id=pid)
    found = await paginate(db, stmt, paging, order_by=StatusPageSubscriber.id)
    return listing((document(row) for row in found.data), found.links)


async def _subscriber(
    db: AsyncSession, caller: Principal, status_page_id: str, subscriber_id: str
) -> StatusPageSubscriber:
    pid = await _page_id(db, caller, status_page_id)
    return await team_object(
        db,
        StatusPageSubscriber,
        TYPE,
        team_id=caller.team_id,
        object_id=object_id(subscriber_id, TYPE),
        status_page_id=pid,
    )


@routes.get(SUBSCRIBER, summary="Get a status page subscriber")
async def get_subscriber(
    status_page_id: str, subscriber_id: str, caller: Caller, db: ReadDb
) -> Response:
    return single(document(await _subscriber(db, caller, status_page_id, subscriber_id)))


@routes.delete(SUBSCRIBER, summary="Remove a status page subscriber")
async def delete_subscriber(
    status_page_id: str, subscriber_id: str, caller: Caller, db: WriteDb
) -> Response:
    async with db.begin():
        row = await _subscriber(db, caller, status_page_id, subscriber_id)
        await service.remove(db, row.id)
    return no_content()


routers = (router,)
