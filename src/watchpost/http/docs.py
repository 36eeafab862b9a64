"""The browsable API pages, /docs (Swagger UI) and /redoc, served without any CDN.

FastAPI's own pages load their scripts, styles and fonts from public CDNs, so an offline
install showed blank pages. The assets come from the `fastapi-offline` package (which ships
Swagger UI and ReDoc builds) and are served under ASSETS_PATH by this server; the pages are
FastAPI's, pointed at them, with ReDoc's Google Fonts left out and Swagger UI's online
validator badge off (it loaded an image from validator.swagger.io).

Each page's Content-Security-Policy allows its inline scripts and styles by the hashes of the
ones FastAPI's HTML holds (its template and our parameters: nothing from the request but the
server's root path), the assets from this server, and requests to this server (the OpenAPI
document, "Try it out"). ReDoc styles itself with `<style>` elements it makes at run time
(styled-components), so /redoc allows inline styles (scripts stay by hash) and workers from
`blob:` (its search index).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Final

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

from watchpost.http.security import CSP, html_policy, source_hash

DOCS_PATH = "/docs"
REDOC_PATH = "/redoc"
OAUTH2_REDIRECT_PATH = "/docs/oauth2-redirect"
ASSETS_PATH = "/docs/assets"
ASSETS_PACKAGE = ("fastapi_offline", "static")
"""(package, folder) holding swagger-ui-bundle.js, swagger-ui.css, redoc.standalone.js and
favicon.png."""


_INLINE = re.compile(r"<(script|style)>(.*?)</\1>", re.DOTALL)
_SELF: Final = ("'self'",)


def with_policy(page: HTMLResponse, **sources: tuple[str, ...]) -> HTMLResponse:
    """The page with its policy: its inline scripts and styles by hash, and `sources`."""
    found: dict[str, list[str]] = {"script": [], "style": []}
    for kind, text in _INLINE.findall(bytes(page.body).decode()):
        found[kind].append(source_hash(text))
    policy = html_policy(
        **{
            "script_src": (*_SELF, *found["script"]),
            "style_src": tuple(found["style"]),
            "connect_src": _SELF,
            **sources,
        }
    )
    page.headers[CSP.decode()] = policy
    return page


def _base(request: Request) -> str:
    root: str = request.scope.get("root_path", "")
    return root.rstrip("/")


def docs_routes(title: str, openapi_url: str) -> list[BaseRoute]:
    """The /docs and /redoc pages and the mount of their assets, as routes of the app."""

    async def swagger_ui(request: Request) -> HTMLResponse:
        base = _base(request)
        page = get_swagger_ui_html(
            openapi_url=f"{base}{openapi_url}",
            title=f"{title} - Swagger UI",
            oauth2_redirect_url=f"{base}{OAUTH2_REDIRECT_PATH}",
            swagger_js_url=f"{base}{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{base}{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{base}{ASSETS_PATH}/favicon.png",
            swagger_ui_parameters={"validatorUrl": None},
        )
        return with_policy(page)

    async def oauth2_redirect() -> HTMLResponse:
        return with_policy(get_swagger_ui_oauth2_redirect_html())

    async def redoc(request: Request) -> HTMLResponse:
        base = _base(request)
        page = get_redoc_html(
            openapi_url=f"{base}{openapi_url}",
            title=f"{title} - ReDoc",
            redoc_js_url=f"{base}{ASSETS_PATH}/redoc.standalone.js",
            redoc_favicon_url=f"{base}{ASSETS_PATH}/favicon.png",
            with_google_fonts=False,
        )
        return with_policy(page, style_src=(*_SELF, "'unsafe-inline'"), worker_src=("blob:",))

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
