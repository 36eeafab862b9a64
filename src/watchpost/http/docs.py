"""The browsable API pages, /docs (Swagger UI) and /redoc, served without any CDN.

FastAPI's own pages load their scripts, styles and fonts from public CDNs, so an offline
install showed blank pages. The assets come from the `fastapi-offline` package (which ships
Swagger UI and ReDoc builds) and are served under ASSETS_PATH by this server; the pages are
FastAPI's, pointed at them, with ReDoc's Google Fonts left out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.requests import Request
from starlette.routing import BaseRoute, Mount

DOCS_PATH = "/docs"
REDOC_PATH = "/redoc"
OAUTH2_REDIRECT_PATH = "/docs/oauth2-redirect"
ASSETS_PATH = "/docs/assets"
ASSETS_PACKAGE = ("fastapi_offline", "static")
"""(package, folder) holding swagger-ui-bundle.js, swagger-ui.css, redoc.standalone.js and
favicon.png."""


def _base(request: Request) -> str:
    root: str = request.scope.get("root_path", "")
    return root.rstrip("/")


def docs_routes(title: str, openapi_url: str) -> list[BaseRoute]:
    """The /docs and /redoc pages and the mount of their assets, as routes of the app."""

    async def swagger_ui(request: Request) -> HTMLResponse:
        base = _base(request)
        return get_swagger_ui_html(
            openapi_url=f"{base}{openapi_url}",
            title=f"{title} - Swagger UI",
            oauth2_redirect_url=f"{base}{OAUTH2_REDIRECT_PATH}",
            swagger_js_url=f"{base}{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{base}{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{base}{ASSETS_PATH}/favicon.png",
        )

    async def oauth2_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    async def redoc(request: Request) -> HTMLResponse:
        base = _base(request)
        return get_redoc_html(
            openapi_url=f"{base}{openapi_url}",
            title=f"{title} - ReDoc",
            redoc_js_url=f"{base}{ASSETS_PATH}/redoc.standalone.js",
            redoc_favicon_url=f"{base}{ASSETS_PATH}/favicon.png",
            with_google_fonts=False,
        )

    pages: list[tuple[str, Callable[..., Awaitable[HTMLResponse]]]] = [
        (DOCS_PATH, swagger_ui),
        (OAUTH2_REDIRECT_PATH, oauth2_redirect),
        (REDOC_PATH, redoc),
    ]
    routes: list[BaseRoute] = [
        APIRoute(path, page, methods=["GET"], include_in_schema=False, response_class=HTMLResponse)
        for path, page in pages
    ]
    routes.append(Mount(ASSETS_PATH, StaticFiles(packages=[ASSETS_PACKAGE]), name="docs-assets"))
    return routes
