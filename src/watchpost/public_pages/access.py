"""Which status page a public request is for, and whether its visitor may see it.

Where a page lives:

- `/status/{subdomain}/...` on the Watchpost server, always;
- `https://<custom_domain>/...` (the page's `custom_domain`) and, with
  WATCHPOST_STATUS_PAGE_DOMAIN set, `https://{subdomain}.<that domain>/...`: the same paths
  without the `/status/{subdomain}` prefix. `PageHosts`, an ASGI middleware, rewrites such a
  request's path to `/status/{subdomain}/...` before routing (a page's own host serves only the
  page: `/api/v2/...` there is the page's Statuspage-format JSON, never the token API) and
  records the subdomain in the scope, so links and cookies drop the prefix again.

Who may see it, in this order: an unknown page, or one with `published: false`, is a 404 HTML
page; a page with `require_sso` (no SSO here), or a client address outside a non-empty
`ip_allowlist`, gets a 403 page; a page with `password_enabled` needs the cookie
`POST .../login` sets (else the password form, 401).

Use in a public route (any part of a page: HTML, feeds, JSON, badges):

    from watchpost.public_pages.access import VisiblePage
    from watchpost.public_pages.caching import cached

    @router.get("/status/{subdomain}/feed.rss")
    async def feed(request: Request, page: VisiblePage, db: ReadDb) -> Response:
        body = ...  # from page.page (the StatusPage row), page.now, page.url("/reports/1")
        return cached(request, body, "application/rss+xml", private=page.private)

`VisiblePage` is a FastAPI dependency (it reads the path parameter `subdomain`): it gives a
`PublicPage`, or stops the request with `PageDenied`, whose handler answers the 404 / 403 /
401 page. Code that is not a route calls `open_page(request, session, subdomain)`, which
returns the `PublicPage` or the `Response` to send instead.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Final

from fastapi import Depends, Request
from fastapi.responses import Response
from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.types import Receive, Scope, Send

from watchpost.context import AppContext
from watchpost.crypto import on_hashing_thread
from watchpost.http.deps import ReadDb, request_sessions
from watchpost.http.middleware import HttpMiddleware
from watchpost.public_pages import sessions
from watchpost.public_pages.templates import error_page, password_page
from watchpost.status_pages.models import StatusPage

PAGE_HOST: Final = "watchpost.page_host"
"""Scope key: the subdomain of the page whose own host the request came to."""
PREFIX: Final = "/status"


@dataclass(frozen=True)
class PublicPage:
    """A page its visitor may see."""

    page: StatusPage
    """The row, read in the request's read session (do not change it)."""
    base: str
    """The page's path prefix: `/status/{subdomain}`, or "" on the page's own host."""
    private: bool
    """Password-protected: answers are `Cache-Control: private` and vary by cookie."""
    now: datetime

    def url(self, path: str = "") -> str:
        """A path of the page as the visitor addresses it: url("/history")."""
        return (self.base + path) or "/"


class PageDenied(Exception):
    """Raised by `VisiblePage`: `response` (404, 403 or the 401 password form) is the answer."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


async def on_page_denied(_request: Request, exc: Exception) -> Response:
    """The exception handler of PageDenied (installed by app.py)."""
    assert isinstance(exc, PageDenied)
    return exc.response


def page_base(request: Request, subdomain: str) -> str:
    """`/status/{subdomain}`, or "" when the request came to the page's own host."""
    return "" if request.scope.get(PAGE_HOST) == subdomain else f"{PREFIX}/{subdomain}"


def client_address(request: Request) -> str:
    """The client's address (behind a trusted proxy, uvicorn's X-Forwarded-For one)."""
    return request.client.host if request.client is not None else ""


def allowed(allowlist: list[str], address: str) -> bool:
    """Whether address is in one of the list's addresses or ranges (no list: everyone).
    Comment entries (`# ...`) are skipped; an IPv4-mapped IPv6 address counts as IPv4."""
    networks = [e.strip() for e in allowlist if e.strip() and not e.strip().startswith("#")]
    if not networks:
        return True
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for entry in networks:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except (ValueError, TypeError):
            continue
    return False


def refusal(page: StatusPage, request: Request) -> Response | None:
    """The 403 for a visitor outside the page's IP allowlist, or for a page that requires
    single sign-on (which this server does not offer: such a page is shown to nobody)."""
    if page.require_sso:
        return error_page(403, "Not available", "This status page requires single sign-on.")
    if not allowed(page.ip_allowlist or [], client_address(request)):
        return error_page(403, "Not available", "This status page is not available from here.")
    return None


_PAGE_OF: Final = select(StatusPage).where(StatusPage.subdomain == bindparam("subdomain"))
"""Built once: a statement made per request costs its construction and cache key."""


async def find_page(session: AsyncSession, subdomain: str) -> StatusPage | None:
    """The published page of that subdomain."""
    found = await session.scalar(_PAGE_OF, {"subdomain": subdomain})
    return found if found is not None and found.published else None


def page_not_found() -> Response:
    """The answer of a page that does not exist (or is not published)."""
    return error_page(404, "Page not found", "There is no status page here.")


async def reached_page(
    request: Request, session: AsyncSession, subdomain: str
) -> StatusPage | Response:
    """The published page of the subdomain, if the visitor's address may reach it; else the
    answer to send (404, or refusal's 403). Its password is not checked here."""
    page = await find_page(session, subdomain.lower()) if len(subdomain) <= 63 else None
    if page is None:
        return page_not_found()
    refused = refusal(page, request)
    return page if refused is None else refused


async def open_page(
    request: Request, session: AsyncSession, subdomain: str
) -> PublicPage | Response:
    """The page, if its visitor may see it; else the answer to send (404, 403, 401 form)."""
    ctx: AppContext = request.app.state.ctx
    base = page_base(request, subdomain)
    page = await reached_page(request, session, subdomain)
    if isinstance(page, Response):
        return page
    now = ctx.clock.now()
    if page.password_enabled and not sessions.valid(ctx, request, page, now):
        visible = base + request.url.path.removeprefix(f"{PREFIX}/{subdomain}")
        return password_page(page, base, status=401, next_path=visible or "/")
    return PublicPage(page=page, base=base, private=bool(page.password_enabled), now=now)


async def visible_page(request: Request, subdomain: str, db: ReadDb) -> PublicPage:
    found = await open_page(request, db, subdomain)
    if isinstance(found, Response):
        raise PageDenied(found)
    return found


VisiblePage = Annotated[PublicPage, Depends(visible_page)]
"""The page a public route's `{subdomain}` names, if its visitor may see it."""


# ---------------------------------------------------------------------------- hosts

DOMAIN_CACHE_SECONDS: Final = 5.0
"""How long a host's custom-domain lookup is remembered (per process)."""
DOMAIN_CACHE_SIZE: Final = 4096


class _DomainCache:
    """host → the subdomain whose custom_domain it is (or None), for a few seconds."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.entries: OrderedDict[str, tuple[str | None, float]] = OrderedDict()

    async def subdomain(self, host: str, scope: Scope) -> str | None:
        """Looked up on the request's own read session: the endpoint goes on with the same
        connection (a request checks out one, as without this lookup)."""
        at = time.monotonic()
        hit = self.entries.get(host)
        if hit is not None and hit[1] > at:
            return hit[0]
        sessions = request_sessions(Request(scope))
        try:
            session = await sessions.read()
            found = await session.scalar(
                select(StatusPage.subdomain).where(StatusPage.custom_domain == host)
            )
        except Exception:  # the database is unreachable: the request goes on as addressed
            await sessions.close()  # (/healthz answers for itself; nothing is remembered)
            return None
        self.entries[host] = (found, at + DOMAIN_CACHE_SECONDS)
        self.entries.move_to_end(host)
        while len(self.entries) > DOMAIN_CACHE_SIZE:
            self.entries.popitem(last=False)
        return found


def request_host(scope: Scope) -> str | None:
    """The Host header's name: lowercase, without port or trailing dot."""
    for name, value in scope.get("headers", ()):
        if name == b"host":
            text = value.decode("latin-1").strip().lower()
            if text.startswith("["):  # an IPv6 literal
                return text[1 : text.find("]")] if "]" in text else None
            return text.rsplit(":", 1)[0].rstrip(".") or None
    return None


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class PageHosts(HttpMiddleware):
    """Serves a page at its own host: rewrites the path to `/status/{subdomain}/...`."""

    def __init__(self, app: object) -> None:
        super().__init__(app)  # type: ignore[arg-type]
        self._cache: _DomainCache | None = None

    async def page_of(self, scope: Scope) -> str | None:
        host = request_host(scope)
        if host is None or host == "localhost" or _is_address(host):
            return None
        ctx: AppContext = scope["app"].state.ctx
        settings = ctx.settings
        if host == settings.public_host():
            return None
        domain = settings.status_page_domain
        if domain is not None and host.endswith("." + domain):
            label = host[: -len(domain) - 1]
            return label if "." not in label else None
        if self._cache is None or self._cache.ctx is not ctx:
            self._cache = _DomainCache(ctx)
        return await self._cache.subdomain(host, scope)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        subdomain = await self.page_of(scope)
        if subdomain is not None:
            path = scope["path"]
            prefix = f"{PREFIX}/{subdomain}"
            rest = "" if path == "/" else path
            raw = scope.get("raw_path") or path.encode()
            # In place: the outer middleware (request sessions) reads this same scope.
            scope["path"] = prefix + rest
            scope["raw_path"] = prefix.encode() + (b"" if raw == b"/" else raw)
            scope[PAGE_HOST] = subdomain
        await self.app(scope, receive, send)


async def check_password_off_loop(page: StatusPage, password: str, ctx: AppContext) -> bool:
    """Whether password is the page's (scrypt, ≈ 50 ms: on a password-hashing thread)."""
    return await on_hashing_thread(sessions.password_matches, ctx, page, password)
