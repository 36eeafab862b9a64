"""A public page's machine-readable side: the Statuspage-format JSON under `/api/v2/`, the
RSS and Atom feeds, and the SVG badges of the page and of each resource.

Every route is under `/status/{subdomain}`; on a page's own host the same paths answer
without that prefix (access.PageHosts rewrites them). Each goes through the access layer
first (`VisiblePage`: published, IP allowlist, password cookie) and answers with an ETag and
Cache-Control (`caching.cached`: 304 on If-None-Match). Absolute addresses in the answers
(the page's `url`, feed links, report links) are the page's address as the visitor reached
it: its own host, or WATCHPOST_PUBLIC_URL (else the request's host) plus `/status/{subdomain}`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from watchpost.http.deps import ReadDb
from watchpost.public_pages import badges, feeds, statuspage_api
from watchpost.public_pages.access import PublicPage, VisiblePage
from watchpost.public_pages.caching import cached
from watchpost.public_pages.snapshot import load_snapshot, resource_names
from watchpost.public_pages.templates import error_page
from watchpost.validation import parse_id

PREFIX: Final = "/status/{subdomain}"
JSON_TYPE: Final = "application/json"
METHODS: Final = ["GET", "HEAD"]


router = APIRouter(tags=["public status pages"], include_in_schema=False)


def absolute(request: Request, shown: PublicPage, path: str = "") -> str:
    """The page's address (plus path) as the visitor reached it, absolute."""
    settings = request.app.state.ctx.settings
    origin = f"{request.url.scheme}://{request.url.netloc}"
    if shown.base and settings.public_base is not None:
        origin = settings.public_base
    return origin + shown.base + path


def _json_route(name: str) -> Callable[[Request, VisiblePage, ReadDb], Awaitable[Response]]:
    async def statuspage_document(request: Request, shown: VisiblePage, db: ReadDb) -> Response:
        snapshot = await load_snapshot(db, shown.page, shown.now)
        body = statuspage_api.document(name, snapshot, absolute(request, shown))
        response = cached(request, orjson.dumps(body), JSON_TYPE, private=shown.private)
        if not shown.private:
            # What Statuspage sends: widgets on other sites read these with fetch().
            response.headers["Access-Control-Allow-Origin"] = "*"
        return response

    statuspage_document.__name__ = "statuspage_" + name.replace("/", "_").replace("-", "_")
    return statuspage_document


for _name in statuspage_api.DOCUMENTS:
    router.add_api_route(
        f"{PREFIX}/api/v2/{_name}.json",
        _json_route(_name),
        methods=METHODS,
        summary=f"The page's {_name}.json in the Statuspage public API format",
        response_class=Response,
    )


async def _feed(request: Request, shown: PublicPage, db: ReadDb, kind: str) -> Response:
    snapshot = await load_snapshot(db, shown.page, shown.now, resources=False)
    names = await resource_names(db, shown.page)
    page_url = absolute(request, shown)
    found = feeds.entries(snapshot.reports, statuspage_api.ReportUrls(page_url), names)
    feed_url = absolute(request, shown, f"/feed.{kind}")
    if kind == "rss":
        return cached(
            request,
            feeds.rss(shown.page, page_url, feed_url, found),
            feeds.RSS_TYPE,
            private=shown.private,
        )
    body = feeds.atom(shown.page, page_url, feed_url, found)
    return cached(request, body, feeds.ATOM_TYPE, private=shown.private)


@router.api_route(f"{PREFIX}/feed.rss", methods=METHODS, summary="Reports and updates, RSS 2.0")
async def feed_rss(request: Request, shown: VisiblePage, db: ReadDb) -> Response:
    return await _feed(request, shown, db, "rss")


@router.api_route(f"{PREFIX}/feed.atom", methods=METHODS, summary="Reports and updates, Atom")
async def feed_atom(request: Request, shown: VisiblePage, db: ReadDb) -> Response:
    return await _feed(request, shown, db, "atom")


@router.api_route(f"{PREFIX}/badge.svg", methods=METHODS, summary="The page's state as a badge")
async def page_badge(request: Request, shown: VisiblePage, db: ReadDb) -> Response:
    snapshot = await load_snapshot(db, shown.page, shown.now, reports=False)
    state = statuspage_api.indicator(snapshot)
    if snapshot.resources and not snapshot.monitored:
        state = "not_monitored"
    svg = badges.page_badge(shown.page.company_name, state)
    return cached(request, svg, badges.SVG_TYPE, private=shown.private)


@router.api_route(
    f"{PREFIX}/resources/{{resource_id}}/badge.svg",
    methods=METHODS,
    summary="A resource's status as a badge",
)
async def resource_badge(
    request: Request, shown: VisiblePage, db: ReadDb, resource_id: str
) -> Response:
    ident = parse_id(resource_id)
    found = None
    if ident is not None:
        snapshot = await load_snapshot(db, shown.page, shown.now, reports=False, only=ident)
        found = snapshot.resource(ident)
    if found is None:
        return error_page(404, "Not found", "This status page shows no such resource.")
    svg = badges.resource_badge(found.name, found.status)
    return cached(request, svg, badges.SVG_TYPE, private=shown.private)


routers = (router,)
