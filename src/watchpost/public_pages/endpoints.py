"""The public HTML of status pages: the page, its history, each report, the password form.

Listed in routes.PUBLIC_ENDPOINTS (no token). `fallback_routes()` go after every other route
(app.py): any other path under `/status/{subdomain}/` (and so any other path on a page's own
host) is the page's 404 page, after the page's access rules (a protected page answers its
password form, never whether a path exists).
"""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.routing import APIRoute
from starlette.routing import Match, Route
from starlette.types import Scope

from watchpost.context import AppContext
from watchpost.http.body import form_fields
from watchpost.http.deps import ReadDb
from watchpost.public_pages import sessions
from watchpost.public_pages.access import (
    PREFIX,
    VisiblePage,
    check_password_off_loop,
    client_address,
    open_page,
    page_base,
    reached_page,
)
from watchpost.public_pages.caching import cached
from watchpost.public_pages.report_view import by_month, report_view, report_views, split_current
from watchpost.public_pages.templates import error_page, page_context, password_page, render
from watchpost.public_pages.view import page_view, page_zone, resource_names

router = APIRouter(tags=["public status pages"], include_in_schema=False)
routers = (router,)
PAGE: Final = PREFIX + "/{subdomain}"
MAX_FORM_BYTES: Final = 4096


@router.api_route(PAGE, methods=["GET", "HEAD"])
@router.api_route(PAGE + "/", methods=["GET", "HEAD"])
async def status_page(request: Request, page: VisiblePage, db: ReadDb) -> Response:
    view = await page_view(db, page.page, page.now)
    reports = await report_views(db, page.page, page.now, view.names)
    current, _ = split_current(reports)
    body = render("index.html", **page_context(page.page, page.base), view=view, current=current)
    return cached(request, body, private=page.private)


@router.api_route(PAGE + "/history", methods=["GET", "HEAD"])
async def history(request: Request, page: VisiblePage, db: ReadDb) -> Response:
    names = await resource_names(db, page.page)
    reports = await report_views(db, page.page, page.now, names)
    _, past = split_current(reports)
    tz = page_zone(page.page)
    body = render(
        "history.html", **page_context(page.page, page.base), months=by_month(past, tz), tz=tz
    )
    return cached(request, body, private=page.private)


@router.api_route(PAGE + "/reports/{report_id}", methods=["GET", "HEAD"])
async def report(request: Request, page: VisiblePage, db: ReadDb, report_id: str) -> Response:
    found = None
    if report_id.isascii() and report_id.isdigit() and len(report_id) < 19:
        names = await resource_names(db, page.page)
        found = await report_view(db, page.page, int(report_id), page.now, names)
    if found is None:
        return error_page(404, "Report not found", "There is no such report on this page.")
    tz = page_zone(page.page)
    body = render("report.html", **page_context(page.page, page.base), report=found, tz=tz)
    return cached(request, body, private=page.private)


async def _form(request: Request) -> dict[str, str]:
    """An urlencoded form of at most MAX_FORM_BYTES (first value of each field)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return {}
    fields = form_fields(body.decode("utf-8", "replace"), max_fields=10)
    return {name: values[0] for name, values in fields.items() if values}


def _next(base: str, wanted: str) -> str:
    """Where to go after logging in: a path of the page (never another site)."""
    home = base or "/"
    inside = wanted == home or wanted.startswith(base + "/")
    if not inside or "//" in wanted or "\\" in wanted:
        return home
    return wanted if all(c.isprintable() and not c.isspace() for c in wanted) else home


@router.post(PAGE + "/login")
async def login(request: Request, subdomain: str, db: ReadDb) -> Response:
    """Form field `password`: right, a session cookie and 303 to the page; wrong, the form
    again (401); too many attempts from one address, 429 (not checked)."""
    ctx: AppContext = request.app.state.ctx
    base = page_base(request, subdomain)
    page = await reached_page(request, db, subdomain)
    if isinstance(page, Response):
        return page
    form = await _form(request)
    target = _next(base, form.get("next", ""))
    if not page.password_enabled:
        return RedirectResponse(target, status_code=303)
    limiter = sessions.login_limiter(request)
    now = ctx.clock.now()
    if limiter is not None and limiter.acquire(client_address(request), now.timestamp()):
        response = password_page(
            page, base, status=429, next_path=target, error="Too many attempts: wait a minute."
        )
        response.headers["Retry-After"] = "60"
        return response
    password = form.get("password", "")
    if not password or not await check_password_off_loop(page, password, ctx):
        return password_page(page, base, status=401, next_path=target, error="Wrong password.")
    response = RedirectResponse(target, status_code=303)
    response.headers["Cache-Control"] = "no-store"
    response.set_cookie(
        sessions.cookie_name(page),
        sessions.issue(ctx, page, now),
        max_age=sessions.SESSION_SECONDS,
        path=base or "/",
        httponly=True,
        secure=request.url.scheme == "https",
        samesite="lax",
    )
    return response


class _LastResort(APIRoute):
    """A route that matches only paths no other route of the app matches, whatever the
    method: a page's other routes keep their 405s (and Allow headers) to themselves."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        if match is Match.NONE:
            return match, child
        for route in scope["app"].router.routes:
            other = route is not self and isinstance(route, Route)
            if other and route.matches(scope)[0] is not Match.NONE:
                return Match.NONE, {}
        return match, child


fallback = APIRouter(include_in_schema=False, route_class=_LastResort)


@fallback.api_route(PAGE + "/{rest:path}", methods=["GET", "HEAD"])
async def not_found(request: Request, subdomain: str, db: ReadDb) -> Response:
    found = await open_page(request, db, subdomain)
    if isinstance(found, Response):
        return found
    return error_page(404, "Page not found", "There is no such page on this status page.")


def fallback_routes() -> list[APIRoute]:
    return [route for route in fallback.routes if isinstance(route, APIRoute)]
