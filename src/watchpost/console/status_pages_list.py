"""/status-pages: the team's status pages (paged, each with what its public page shows now,
read for every row together by status_pages/page_states.py, its addresses and subscriber
count), and a page's preview for the team's members."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.auth import read_db
from watchpost.console.errors import ConsoleRoute
from watchpost.console.status_pages_kit import (
    SECTION,
    Signed,
    addresses,
    paging_of,
    state_of,
    team_page,
)
from watchpost.console.web import render
from watchpost.http.deps import request_sessions
from watchpost.people.roles import Action
from watchpost.public_pages.caching import uncached
from watchpost.public_pages.report_view import report_views, split_current
from watchpost.public_pages.templates import page_context
from watchpost.public_pages.templates import render as render_public
from watchpost.public_pages.view import page_view
from watchpost.status_pages import pages
from watchpost.status_pages.page_states import page_states
from watchpost.subscriptions.models import StatusPageSubscriber

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)

# ------------------------------------------------------------------------ the list


async def _subscriber_counts(db: AsyncSession, page_ids: list[int]) -> dict[int, int]:
    if not page_ids:
        return {}
    rows = await db.execute(
        select(StatusPageSubscriber.status_page_id, func.count())
        .where(StatusPageSubscriber.status_page_id.in_(page_ids))
        .group_by(StatusPageSubscriber.status_page_id)
    )
    return {page_id: count for page_id, count in rows.tuples()}


@router.get("/status-pages")
async def list_pages(request: Request, who: Signed) -> Response:
    who.require(Action.READ)
    paging = paging_of(request)
    db = await request_sessions(request).read()
    found = await pages.list_pages(db, team_id=who.team_id, paging=paging)
    now = request.app.state.ctx.clock.now()
    counts = await _subscriber_counts(db, [p.id for p in found.data])
    states = await page_states(db, found.data, now=now)  # the API's aggregate_state, batched
    rows = []
    for page in found.data:
        rows.append(
            {
                "page": page,
                "state": state_of(states[page.id]),
                "where": addresses(request, page),
                "subscribers": counts.get(page.id, 0),
            }
        )
    return render(
        request,
        "status_pages.html",
        viewer=who,
        section=SECTION,
        rows=rows,
        links=found.links,
        page_number=paging.page,
    )


# --------------------------------------------------------------------- preview


@router.get("/status-pages/{page_id}/preview")
async def preview(request: Request, who: Signed, page_id: str) -> Response:
    """The public page as its visitors see it now, for the team's members only: also while
    it is unpublished, password-protected or restricted to addresses (the public address
    answers those with a 404, the password form or a 403). Its links lead to the public
    address. Never cached, never indexed."""
    db = await read_db(request, who, Action.READ)
    page = await team_page(db, who, page_id)
    now = request.app.state.ctx.clock.now()
    view = await page_view(db, page, now)
    reports = await report_views(db, page, now, view.names)
    current, _ = split_current(reports)
    context = {**page_context(page, f"/status/{page.subdomain}"), "noindex": True}
    body = render_public("index.html", **context, view=view, current=current)
    response = uncached(body, 200, control="no-store")
    response.headers["X-Robots-Tag"] = "noindex"
    return response
