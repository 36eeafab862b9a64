"""The Jinja2 environment of the public pages and the error / password pages.

Templates live in templates/ beside this module; autoescape is on for all of them. The
stylesheet (templates/page.css) is inlined in every page: no request leaves for anything
but the page itself (logos excepted: they are the page's own `logo_url`s). A page is
rendered with its Content-Security-Policy (Html): each stylesheet a template inlines through
the `inline_style` filter is allowed by its hash, the logos by their origins, nothing else.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from fastapi.responses import Response
from markupsafe import Markup

from watchpost.http.security import html_policy, source_hash
from watchpost.public_pages import bars
from watchpost.public_pages.caching import NO_STORE, PUBLIC, Html, uncached
from watchpost.public_pages.view import CHART_WIDGETS
from watchpost.status_pages.models import StatusPage

if TYPE_CHECKING:
    from jinja2 import Environment
    from jinja2.runtime import Context

FOLDER: Final = Path(__file__).with_name("templates")
STATE_LABELS: Final[dict[str, str]] = {
    "operational": "All systems operational",
    "degraded": "Degraded performance",
    "partial_outage": "Partial outage",
    "major_outage": "Major outage",
    "maintenance": "Under maintenance",
}
REPORT_STATES: Final[dict[str, str]] = {
    "scheduled": "Scheduled",
    "in_progress": "In progress",
    "resolved": "Resolved",
    "completed": "Completed",
}


def style_text(css: str | None) -> Markup:
    """Custom CSS made safe inside <style>: every `<` becomes the CSS escape `\\3C ` (the
    same character wherever CSS allows one), so nothing in it can end the element. Blank
    lines are dropped here (render() drops them from the page, and the policy's hash must
    be of the text the page holds)."""
    text = "\n".join(line for line in (css or "").splitlines() if line.strip())
    return Markup(text.replace("<", "\\3C "))  # noqa: S704 (no `<` is left)


STYLES: Final = "inline_styles"
"""The context variable listing the stylesheets a rendering inlined (inline_style)."""


def inline_style(context: Context, css: str | None) -> Markup:
    """CSS for a `<style>` element of the page (as style_text), its hash noted for the
    page's policy (a filter given the template's context: environment())."""
    text = style_text(css)
    context[STYLES].append(source_hash(text))
    return text


THEMES: Final = ("light", "dark", "system")


def _css() -> dict[str, Markup]:
    """The stylesheet with its indentation and comments dropped (it is sent with every page),
    for each theme: its rules for the other themes left out."""
    lines = []
    for line in (FOLDER / "page.css").read_text().splitlines():
        text = line.strip()
        if text and not text.startswith("/*"):
            lines.append(text)
    dark, system = ":root[data-theme=dark]", ":root[data-theme=system]"
    unused = {
        "light": (dark, system),
        "dark": (system,),
        "system": (dark,),
    }
    return {
        theme: Markup(  # noqa: S704 (the package's own file)
            "".join(line for line in lines if not any(rule in line for rule in unused[theme]))
        )
        for theme in THEMES
    }


@functools.cache
def environment() -> Environment:
    """Made at the first page rendered: Jinja2 (≈ 2.4 MB) loads then, not at the start."""
    from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape

    env = Environment(
        loader=FileSystemLoader(FOLDER),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.filters["style_text"] = style_text
    env.filters["inline_style"] = pass_context(inline_style)
    env.filters["duration"] = bars.duration
    env.globals.update(
        CSS=_css(),
        LABELS=bars.LABELS,
        STATE_LABELS=STATE_LABELS,
        REPORT_STATES=REPORT_STATES,
        CHART_WIDGETS=CHART_WIDGETS,
        bars=bars,
    )
    return env


_HOST: Final = re.compile(r"[a-z0-9.-]+")


def _origin(url: str | None) -> list[str]:
    """A logo URL's origin as a CSP source (none for what a source cannot name)."""
    try:
        parts = urlsplit(url or "")
        port = parts.port
    except ValueError:
        return []
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not _HOST.fullmatch(host):
        return []
    return [f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")]


def render(name: str, **context: Any) -> Html:
    """A template rendered, with its blank lines squeezed out, and its policy: its inlined
    stylesheets and the logos of the page it shows, if any."""
    styles: list[str] = []
    text = environment().get_template(name).render(**context, **{STYLES: styles})
    body = "\n".join(line for line in text.splitlines() if line.strip())
    page = context.get("page")
    images = [*_origin(page.logo_url), *_origin(page.dark_logo_url)] if page else []
    return Html(body, html_policy(style_src=dict.fromkeys(styles), img_src=dict.fromkeys(images)))


PAGE_PATHS: Final[dict[str, str]] = {"/": "", "/incidents": "/history", "/maintenance": "/history"}


def links(page: StatusPage, base: str) -> list[tuple[str, str]]:
    """The navigation links as (text, href): a path of the page is made one of its URLs."""
    found = []
    for link in page.navigation_links or []:
        href = str(link.get("href") or "")
        if href.startswith("/"):
            href = (base + PAGE_PATHS.get(href.rstrip("/") or "/", href)) or "/"
        found.append((str(link.get("text") or href), href))
    return found


def page_context(page: StatusPage, base: str) -> dict[str, Any]:
    """What the layout (base.html) reads of any page."""
    return {
        "page": page,
        "links": links(page, base),
        "tz_name": page.timezone,
        "base": base,
        "home": base or "/",
        "theme": page.theme if page.theme in THEMES else "system",
        "noindex": page.hide_from_search_engines,
    }


def error_page(status: int, title: str, message: str) -> Response:
    """A minimal HTML page of its own (no page's name, style or logo: nothing to reveal)."""
    body = render("error.html", title=title, message=message, status=status)
    return uncached(body, status, control=PUBLIC if status == 404 else NO_STORE)


def password_page(
    page: StatusPage, base: str, *, status: int, next_path: str = "", error: str | None = None
) -> Response:
    """The password form of a protected page: its name and nothing else of it."""
    body = render(
        "password.html",
        **{**page_context(page, base), "noindex": True},
        next_path=next_path,
        error=error,
        status=status,
    )
    return uncached(body, status, control=NO_STORE)
