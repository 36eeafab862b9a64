"""What the status page screens of the console share: finding the team's page (another
team's is a 404, as in the API), its public addresses, paging numbers from the URL and the
audit entry every change writes."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from fastapi import Request
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console import account
from watchpost.console.auth import Viewer
from watchpost.console.notices import notice_of
from watchpost.console.signed_routes import Signed as Signed
from watchpost.listing import PageRequest
from watchpost.status_pages import pages
from watchpost.status_pages.models import StatusPage
from watchpost.validation import object_id

SECTION: Final = "status_pages"
"""The navigation key of every status page screen."""
PER_PAGE: Final = 25


def number(raw: str | None, default: int, high: int) -> int:
    """A page number or size from the URL; anything else is the default (a console page
    shows its first page rather than an error)."""
    text = (raw or "").strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        return default
    return max(1, min(int(text), high))


def paging_of(request: Request, per_page: int = PER_PAGE) -> PageRequest:
    query = request.query_params
    return PageRequest(
        page=number(query.get("page"), 1, 10**9),
        per_page=per_page,
        base_url=request.url.path,
        other_params=(),
    )


async def team_page(
    db: AsyncSession, who: Viewer, page_id: str, *, lock: bool = False
) -> StatusPage:
    """The signed-in team's page of that id (the API's own lookup: another team's is a 404)."""
    return await pages.get_page(
        db, team_id=who.team_id, page_id=object_id(page_id, pages.PAGE), lock=lock
    )


async def audit(
    request: Request,
    db: AsyncSession,
    who: Viewer,
    action: str,
    subject: account.Subject,
    details: dict[str, Any] | None = None,
) -> None:
    """account.audit, now."""
    now = request.app.state.ctx.clock.now()
    await account.audit(db, request, who, action, now, subject, details)


@dataclass(frozen=True)
class Addresses:
    """Where a page is seen, and the DNS record its custom domain needs."""

    path: str
    """`/status/{subdomain}` on this server: always served, whatever the DNS."""
    server_url: str
    """The same as an absolute URL when WATCHPOST_PUBLIC_URL is set, else the path."""
    subdomain_url: str | None
    """`https://{subdomain}.{WATCHPOST_STATUS_PAGE_DOMAIN}` when that is set."""
    custom_url: str | None
    dns_name: str | None
    """The custom domain, fully qualified (the CNAME record's name)."""
    dns_target: str
    """What the record points at: the page's own subdomain host, else this server's host."""
    dns_type: str = "CNAME"
    """CNAME to a host name; A (AAAA) when this server is known by an IPv4 (IPv6) address
    only, since a CNAME cannot name an address."""


def addresses(request: Request, page: StatusPage) -> Addresses:
    settings = request.app.state.ctx.settings
    path = f"/status/{page.subdomain}"
    public = (settings.public_base or "").rstrip("/")
    server_host = urlsplit(public).hostname if public else None
    domain = settings.status_page_domain
    subdomain_host = f"{page.subdomain}.{domain}" if domain else None
    target = subdomain_host or server_host or (request.url.hostname or "this server's host name")
    dns_type = _record_type(target)
    return Addresses(
        path=path,
        server_url=f"{public}{path}" if public else path,
        subdomain_url=f"https://{subdomain_host}" if subdomain_host else None,
        custom_url=f"https://{page.custom_domain}" if page.custom_domain else None,
        dns_name=f"{page.custom_domain}." if page.custom_domain else None,
        dns_target=f"{target}." if dns_type == "CNAME" else target,
        dns_type=dns_type,
    )


def _record_type(target: str) -> str:
    try:
        address = ipaddress.ip_address(target.strip("[]"))
    except ValueError:
        return "CNAME"
    return "A" if address.version == 4 else "AAAA"


STATE_WORDS: Final = {
    "operational": ("up", "All up"),
    "degraded": ("degraded", "Degraded"),
    "downtime": ("down", "Down"),
    "maintenance": ("maintenance", "Maintenance"),
    "not_monitored": ("pending", "Not monitored"),
}


def state_of(state: str) -> tuple[str, str]:
    """(css state, words) of a page's aggregate state."""
    return STATE_WORDS.get(state, ("pending", state.replace("_", " ").capitalize()))


DONE: Final = {
    "created": "Status page created.",
    "saved": "Settings saved.",
    "section_added": "Section added.",
    "resource_added": "Resource added.",
    "section_saved": "Section renamed.",
    "resource_saved": "Resource saved.",
    "moved": "Moved.",
    "removed": "Removed.",
    "report_posted": "Report posted.",
    "update_posted": "Update posted.",
    "update_saved": "Update saved.",
    "update_deleted": "Update deleted.",
    "resolved": "Resolved.",
    "ended": "Maintenance ended.",
}


def editor_url(page: StatusPage, done: str, anchor: str) -> str:
    """The page's editor after a change: its line (`done`, a DONE code), scrolled to
    `anchor`."""
    return f"/status-pages/{page.id}?done={done}#{anchor}"


def notice_for(request: Request) -> str | None:
    """The line after a status page action (`?done=<code>`), else the console's own."""
    return DONE.get(request.query_params.get("done", "")) or notice_of(request.query_params)
