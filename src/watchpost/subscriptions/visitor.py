"""Whether a visitor may sign up on a page: what seeing the page needs (the access layer of
public_pages/access.py: published, the IP allowlist, the password cookie), and the page's
`subscribable`."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.public_pages.access import open_page
from watchpost.public_pages.templates import error_page
from watchpost.status_pages.models import StatusPage

NOT_FOUND = "There is no status page here."


async def open_subscribable(
    request: Request, session: AsyncSession, subdomain: str, *, lock: bool = False
) -> StatusPage | Response:
    """The page, if the visitor may see it and it takes subscribers (read again and locked
    with `lock`); else the answer to send (the access layer's 404, 403 or password form)."""
    found = await open_page(request, session, subdomain)
    if isinstance(found, Response):
        return found
    page = found.page
    if lock:
        locked = await session.scalar(
            select(StatusPage).where(StatusPage.id == page.id).with_for_update()
        )
        if locked is None:
            return error_page(404, "Page not found", NOT_FOUND)
        page = locked
    if not page.subscribable:
        return error_page(404, "Page not found", NOT_FOUND)
    return page
