"""Whether a visitor may sign up on a page: what seeing the page needs, and `subscribable`."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.status_pages.models import StatusPage
from watchpost.subscriptions.pages import page

NOT_FOUND = "There is no status page to subscribe to here."


async def open_subscribable(
    request: Request, session: AsyncSession, subdomain: str, *, lock: bool = False
) -> StatusPage | Response:
    """The page, if the visitor may see it and it takes subscribers (locked with `lock`);
    else the answer to send."""
    query = select(StatusPage).where(StatusPage.subdomain == subdomain.lower())
    found = await session.scalar(query.with_for_update() if lock else query)
    if found is None or not found.published or not found.subscribable:
        return page("Page not found", status=404, message=NOT_FOUND)
    return found
