"""/status-pages: a new page, a page's settings (every attribute the API's status page has,
through the API's own schema and service) and deleting it. The list and the preview are
status_pages_list.py; the layout (sections) status_pages_layout.py and its resources
status_pages_resources.py; reports status_reports.py; subscribers
status_pages_subscribers.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.auth import Viewer, permitted_form, posted_writing, read_db, write_db
from watchpost.console.confirming import Asking, delete_confirmed
from watchpost.console.errors import ConsoleRoute
from watchpost.console.form_kit import choices, stored_or_again
from watchpost.console.forms import CLEAR, Field, Raw, body_of, field_errors, field_of, initial
from watchpost.console.forms import posted as posted_values
from watchpost.console.status_pages_kit import (
    SECTION,
    Signed,
    addresses,
    audit,
    team_page,
)
from watchpost.console.web import form_page
from watchpost.errors import InvalidRequest
from watchpost.people.roles import Action
from watchpost.problems import parse
from watchpost.status_pages import pages
from watchpost.status_pages.models import StatusPage, StatusPageGroup
from watchpost.status_pages.schemas import PageCreate, PageUpdate

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
SUBJECT: Final = "status_page"

# ------------------------------------------------------------------------ the fields

LABELS: Final[dict[str, str]] = {
    "company_name": "Name",
    "company_url": "Company website",
    "contact_url": "Contact address",
    "status_page_group_id": "Status page group",
    "subdomain": "Subdomain",
    "custom_domain": "Custom domain",
    "timezone": "Time zone",
    "logo_url": "Logo URL",
    "dark_logo_url": "Logo URL for dark mode",
    "history": "History length (days)",
    "min_incident_length": "Shortest incident shown (seconds)",
    "navigation_links": "Navigation links",
    "custom_css": "Custom CSS",
    "custom_javascript": "Custom JavaScript",
    "google_analytics_id": "Google Analytics ID",
    "announcement_embed_visible": "Show the announcement in embeds",
    "announcement_embed_link": "Announcement embed link",
    "announcement_embed_css": "Announcement embed CSS",
    "password_enabled": "Protect the page with a password",
    "require_sso": "Require single sign-on",
    "ip_allowlist": "IP allow list",
    "hide_from_search_engines": "Hide from search engines",
    "automatic_reports": "Automatic reports",
    "whitelabeled": "White-labelled (no Watchpost footer)",
}
HINTS: Final[dict[str, str]] = {
    "company_name": "Shown at the top of the public page.",
    "subdomain": "The page's address: /status/<subdomain> on this server. Letters, digits and "
    "hyphens; unique on this server.",
    "custom_domain": "A host name of your own (status.example.com); the page shows the DNS "
    "record to create. Empty: none.",
    "timezone": "IANA name (Europe/Berlin) or Rails name; times on the page are in it.",
    "logo_url": "An https address of the image.",
    "dark_logo_url": "An https address of the image shown in dark mode.",
    "navigation_links": "One link a line: Text: https://address (or a path such as /incidents).",
    "password": "Stored hashed, never shown again.",
    "ip_allowlist": "One address or CIDR range a line (# starts a comment). Empty: anyone.",
    "require_sso": "This server has no single sign-on: such a page is shown to nobody.",
    "custom_javascript": "Kept for the hosted API's clients; the public page runs no script.",
    "google_analytics_id": "Kept for the hosted API's clients; the public page runs no script.",
}
SECTIONS: Final[tuple[tuple[str, tuple[str, ...]], ...]] = (
    (
        "Page",
        (
            "company_name",
            "company_url",
            "contact_url",
            "status_page_group_id",
            "published",
            "subscribable",
            "hide_from_search_engines",
            "automatic_reports",
            "whitelabeled",
        ),
    ),
    ("Address", ("subdomain", "custom_domain")),
    (
        "Look",
        (
            "timezone",
            "theme",
            "layout",
            "design",
            "logo_url",
            "dark_logo_url",
            "history",
            "min_incident_length",
            "navigation_links",
        ),
    ),
    (
        "Announcement",
        (
            "announcement",
            "announcement_embed_visible",
            "announcement_embed_link",
            "announcement_embed_css",
        ),
    ),
    ("Access", ("password_enabled", "password", "require_sso", "ip_allowlist")),
    ("Code", ("custom_css", "custom_javascript", "google_analytics_id")),
)
LINES: Final = frozenset({"navigation_links", "ip_allowlist"})
"""Fields written one item a line (the form kit's list input splits on commas)."""
NEW_FIELDS: Final = ("company_name", "subdomain", "custom_domain", "timezone", "theme")


def page_fields(groups: list[tuple[str, str]], *, creating: bool) -> list[Field]:
    model = PageCreate if creating else PageUpdate
    fields: list[Field] = []
    for section, names in SECTIONS:
        for name in names:
            if creating and name not in NEW_FIELDS:
                continue
            made = field_of(
                model,
                name,
                label=LABELS.get(name),
                hint=HINTS.get(name),
                required=name == "subdomain",
                secret=name == "password",
                section=section,
                choices=groups if name == "status_page_group_id" else None,
            )
            if name in LINES:
                made = Field(made.name, made.label, "textarea", made.hint, section=section)
            fields.append(made)
    return fields


def _values(page: StatusPage) -> dict[str, Any]:
    """The page's attributes as the form's fields read them."""
    values = {name: getattr(page, name, None) for _, names in SECTIONS for name in names}
    values["navigation_links"] = "\n".join(
        f"{link.get('text', '')}: {link.get('href', '')}" for link in page.navigation_links or []
    )
    values["ip_allowlist"] = "\n".join(page.ip_allowlist or [])
    return values


def _links(text: str) -> list[dict[str, str]]:
    """ "Text: address" lines as navigation links (the domain checks each)."""
    found = []
    for line in text.splitlines():
        if line.strip():
            label, colon, href = line.partition(": ")
            found.append(
                {"text": label.strip(), "href": href.strip()}
                if colon
                else {"text": "", "href": line.strip()}
            )
    return found


def page_body(fields: list[Field], raw: Mapping[str, Raw], *, creating: bool) -> dict[str, Any]:
    """The API's body for the form's values (the lists one item a line)."""
    plain = [f for f in fields if f.name not in LINES]
    body = body_of(plain, raw, creating=creating)
    for f in fields:
        if f.name in LINES:
            text = str(raw.get(f.name) or "")
            if f.name == "navigation_links":
                body[f.name] = _links(text)
            else:
                body[f.name] = [line.strip() for line in text.splitlines() if line.strip()]
            if creating and not body[f.name]:
                del body[f.name]
    return body


def _show_form(
    request: Request,
    who: Viewer,
    *,
    page: StatusPage | None,
    fields: list[Field],
    values: Mapping[str, Raw],
    errors: dict[str, str] | None = None,
) -> Response:
    sections: dict[str, list[Field]] = {}
    for item in fields:
        sections.setdefault(item.section, []).append(item)
    if page is None:
        title, action, back, submit = (
            "New status page",
            "/status-pages/new",
            "/status-pages",
            "Create status page",
        )
    else:
        title = f"Settings of {page.company_name}"
        action, back = f"/status-pages/{page.id}/settings", f"/status-pages/{page.id}"
        submit = "Save settings"
    return form_page(
        request,
        "status_page_form.html",
        who,
        errors=errors,
        section=SECTION,
        title=title,
        action=action,
        back=back,
        submit=submit,
        sections=list(sections.items()),
        values=values,
        hidden={},
        secrets={"password": page is not None and page.password_hash is not None},
        page=page,
        where=None if page is None else addresses(request, page),
    )


# --------------------------------------------------------------------- create, edit


async def _groups(db: AsyncSession, who: Viewer) -> list[tuple[str, str]]:
    return await choices(db, StatusPageGroup, who.team_id)


@router.get("/status-pages/new")
async def new_page(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    fields = page_fields([], creating=True)
    values = initial(fields, {"timezone": "UTC", "theme": "light"})
    return _show_form(request, who, page=None, fields=fields, values=values)


def _errors(exc: InvalidRequest, fields: list[Field]) -> dict[str, str]:
    errors = field_errors(exc.problems, [f.name for f in fields])
    for alias, name in (("logo_remote_url", "logo_url"), ("dark_logo_remote_url", "dark_logo_url")):
        if alias in errors:
            errors[name] = errors.pop(alias)
    return errors


@router.post("/status-pages/new")
async def create_page(request: Request, who: Signed) -> Response:
    form, write = await posted_writing(request, who, Action.EDIT)
    fields = page_fields([], creating=True)
    raw = posted_values(fields, form)
    body = page_body(fields, raw, creating=True)
    try:
        async with write.session.begin():
            page = await pages.create_page(write, parse(PageCreate, body))
            subject = (SUBJECT, page.id, page.company_name)
            await audit(request, write.session, who, "status_page.created", subject)
    except InvalidRequest as exc:
        return _show_form(
            request, who, page=None, fields=fields, values=raw, errors=_errors(exc, fields)
        )
    return RedirectResponse(f"/status-pages/{page.id}?done=created", status_code=303)


@router.get("/status-pages/{page_id}/settings")
async def settings_form(request: Request, who: Signed, page_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    page = await team_page(db, who, page_id)
    fields = page_fields(await _groups(db, who), creating=False)
    return _show_form(request, who, page=page, fields=fields, values=initial(fields, _values(page)))


@router.post("/status-pages/{page_id}/settings")
async def save_settings(request: Request, who: Signed, page_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        groups = await _groups(db, who)
    fields = page_fields(groups, creating=False)
    raw = posted_values(fields, form)
    body = page_body(fields, raw, creating=False)
    if "password" not in body and raw.get("password_enabled") and not raw.get("password" + CLEAR):
        body.pop("password", None)  # the stored one is kept

    async def store(db: AsyncSession) -> str:
        data = parse(PageUpdate, body)
        await pages.group_problems(db, who.team_id, data.status_page_group_id)
        page = await team_page(db, who, page_id, lock=True)
        changed = sorted(
            name
            for name in data.model_fields_set
            if name == "password" or getattr(page, name, None) != getattr(data, name)
        )
        await pages.update_page(db, page=page, data=data, sent=set(data.model_fields_set), now=now)
        await audit(
            request,
            db,
            who,
            "status_page.updated",
            (SUBJECT, page.id, page.company_name),
            {"changed": changed},
        )
        return f"/status-pages/{page.id}?done=saved"

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        page = await team_page(db, who, page_id)
        return _show_form(
            request, who, page=page, fields=fields, values=raw, errors=_errors(exc, fields)
        )

    return await stored_or_again(request, store, again)


# --------------------------------------------------------------------- delete, preview


@router.post("/status-pages/{page_id}/delete")
async def delete_page(request: Request, who: Signed, page_id: str) -> Response:
    async def remove(db: AsyncSession, page: StatusPage) -> None:
        await audit(request, db, who, "status_page.deleted", (SUBJECT, page.id, page.company_name))
        await pages.delete_page(db, page=page)

    return await delete_confirmed(
        request,
        who,
        SECTION,
        find=lambda db: team_page(db, who, page_id, lock=True),
        ask=lambda page: Asking(
            title="Delete a status page",
            question=f"Delete the status page {page.company_name}?",
            detail="Its sections, resources, reports and subscribers go with it, and "
            f"/status/{page.subdomain} stops answering.",
            action=f"/status-pages/{page.id}/delete",
            button="Delete the status page",
            back=f"/status-pages/{page.id}",
        ),
        remove=remove,
        done="/status-pages?done=deleted",
    )
