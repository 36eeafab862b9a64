"""The console's HTML kit: the Jinja2 environment, its static files and how a page is
answered (its security policy, no-store caching).

Every page has the same Content-Security-Policy: the server's own stylesheet and script
files only (no inline script or style, so `unsafe-inline` is never needed), forms post only
to the server, never framed. Static files are named by a hash of their content
(`/console/static/console.<hash>.css`) and cached for a year: a new release is a new name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any, Final

from fastapi import Request
from fastapi.responses import HTMLResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from watchpost.console.auth import Viewer
from watchpost.console.navigation import NAVIGATION
from watchpost.console.notices import notice_of
from watchpost.http.security import html_policy

FOLDER: Final = Path(__file__).parent
STATIC_PATH: Final = "/console/static"
POLICY: Final = html_policy(
    script_src=["'self'"], connect_src=["'self'"], img_src=["'self'", "data:"]
)
NO_STORE: Final = "no-store"


@dataclass(frozen=True)
class Asset:
    name: str  # as served: console.<hash>.css
    body: bytes
    media_type: str


@cache
def assets() -> dict[str, Asset]:
    """The static files by served name."""
    found: dict[str, Asset] = {}
    for path in sorted((FOLDER / "static").iterdir()):
        if path.suffix not in (".css", ".js"):
            continue
        body = path.read_bytes()
        digest = hashlib.sha256(body).hexdigest()[:12]
        name = f"{path.stem}.{digest}{path.suffix}"
        media = "text/css" if path.suffix == ".css" else "text/javascript"
        found[name] = Asset(name, body, f"{media}; charset=utf-8")
    return found


@cache
def asset_url(stem_and_suffix: str) -> str:
    stem, _, suffix = stem_and_suffix.rpartition(".")
    for name in assets():
        if name.startswith(stem + ".") and name.endswith("." + suffix):
            return f"{STATIC_PATH}/{name}"
    raise KeyError(stem_and_suffix)


def relative(moment: datetime | None, now: datetime) -> str:
    """ "12 min", "3 h", "5 days": how long ago (or until) a moment is."""
    if moment is None:
        return "—"
    seconds = abs((now - moment).total_seconds())
    if seconds < 60:
        return f"{int(seconds)} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    if seconds < 86400 * 2:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} min"
    return f"{int(seconds // 86400)} days"


def exact(moment: datetime | None) -> str:
    """The exact UTC time (in titles and <time datetime>)."""
    if moment is None:
        return ""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def iso(moment: datetime | None) -> str:
    return "" if moment is None else moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


_BROWSERS: Final = (
    ("Edg/", "Edge"),
    ("OPR/", "Opera"),
    ("Firefox/", "Firefox"),
    ("HeadlessChrome/", "Headless Chrome"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
    ("curl/", "curl"),
)
_SYSTEMS: Final = (
    ("Android", "Android"),
    ("iPhone", "iOS"),
    ("iPad", "iPadOS"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)


def browser_name(user_agent: str) -> str:
    """The browser of a session as a person names it ("Firefox on Linux"): the first match
    of each table, in order (Chrome's User-Agent also says Safari)."""
    browser = next((name for mark, name in _BROWSERS if mark in user_agent), None)
    system = next((name for mark, name in _SYSTEMS if mark in user_agent), None)
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or (user_agent[:60] or "Unknown browser")


@cache
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(FOLDER / "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["asset"] = asset_url
    env.filters["exact"] = exact
    env.filters["iso"] = iso
    env.filters["browser"] = browser_name
    env.globals["navigation"] = NAVIGATION
    return env


def render(request: Request, template: str, *, status: int = 200, **context: Any) -> HTMLResponse:
    """A page: the template rendered with context (plus `request` and `now`), never stored
    by a cache, under the console's policy."""
    now = request.app.state.ctx.clock.now()
    context.setdefault("notice", notice_of(request.query_params))  # after a redirect
    body = (
        environment()
        .get_template(template)
        .render(request=request, now=now, since=lambda m: relative(m, now), **context)
    )
    return HTMLResponse(
        body,
        status_code=status,
        headers={"Content-Security-Policy": POLICY, "Cache-Control": NO_STORE},
    )


def form_page(
    request: Request,
    template: str,
    who: Viewer,
    *,
    errors: Mapping[str, str] | None,
    section: str,
    **context: Any,
) -> HTMLResponse:
    """A page with a form for who: 422 with errors (shown beside their fields), else 200."""
    return render(
        request,
        template,
        status=422 if errors else 200,
        viewer=who,
        section=section,
        errors=errors or {},
        **context,
    )


def static_file(name: str, request: Request) -> Response:
    asset = assets().get(name)
    if asset is None:
        return Response("Not found", status_code=404, media_type="text/plain")
    return Response(
        asset.body,
        media_type=asset.media_type,
        headers={"Cache-Control": "public, max-age=31536000, immutable"},
    )
