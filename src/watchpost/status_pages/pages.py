"""Status pages: unique domains, the password; create, read, change, delete."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import SecretBox
from watchpost.db.queries import one_or_404, team_rows
from watchpost.errors import InvalidRequest
from watchpost.http.pagination import Page, PageRequest, team_page
from watchpost.problems import null_problems, sent_values
from watchpost.status_pages.models import StatusPage
from watchpost.status_pages.schemas import PAGE_DEFAULTS, PAGE_NOT_NULL, PageCreate, PageUpdate

PAGE = "status_page"

Problems = list[tuple[str | None, str]]
"""(field or None, message) pairs for InvalidRequest."""


async def _domain_problems(
    session: AsyncSession, *, subdomain: str | None, custom_domain: str | None, exclude: int | None
) -> Problems:
    """Subdomains and custom domains are unique across the whole installation."""
    problems: Problems = []
    for name, value in (("subdomain", subdomain), ("custom_domain", custom_domain)):
        if value is None:
            continue
        stmt = select(StatusPage.id).where(getattr(StatusPage, name) == value)
        if exclude is not None:
            stmt = stmt.where(StatusPage.id != exclude)
        if await session.scalar(stmt) is not None:
            problems.append((name, f"{name} {value!r} is already taken"))
    return problems


def _password_problems(page: StatusPage) -> Problems:
    if page.password_enabled and page.password_encrypted is None:
        return [("password", "password is required when password_enabled is true")]
    return []


async def _flush_page(session: AsyncSession, page: StatusPage) -> None:
    try:
        await session.flush()
    except IntegrityError:  # a concurrent write took the subdomain or domain first
        raise InvalidRequest(
            [("subdomain", "subdomain or custom_domain is already taken")]
        ) from None


async def create_page(
    session: AsyncSession,
    *,
    team_id: int,
    team_name: str,
    data: PageCreate,
    box: SecretBox,
    now: datetime,
) -> StatusPage:
    """A new page; no sections until one is created or the first resource is added."""
    values = {name: getattr(data, name) for name in type(data).model_fields}
    for name, default in PAGE_DEFAULTS.items():
        if values[name] is None:
            values[name] = default
    password = values.pop("password")
    links = values.pop("navigation_links") or []
    page = StatusPage(
        team_id=team_id,
        **{**values, "company_name": values["company_name"] or team_name},
        navigation_links=[link.model_dump() for link in links],
        password_encrypted=box.encrypt(password) if password is not None else None,
        created_at=now,
        updated_at=now,
    )
    problems = await _domain_problems(
        session, subdomain=page.subdomain, custom_domain=page.custom_domain, exclude=None
    )
    problems += _password_problems(page)
    if problems:
        raise InvalidRequest(problems)
    session.add(page)
    await _flush_page(session, page)
    return page


async def list_pages(
    session: AsyncSession, *, team_id: int, paging: PageRequest
) -> Page[StatusPage]:
    return await team_page(session, StatusPage, paging, team_id=team_id)


async def get_page(
    session: AsyncSession, *, team_id: int, page_id: int, lock: bool = False
) -> StatusPage:
    """The team's page; lock=True serialises position changes within it (PostgreSQL)."""
    stmt = team_rows(StatusPage, team_id=team_id, id=page_id)
    if lock:
        stmt = stmt.with_for_update()
    return await one_or_404(session, stmt, PAGE, page_id)


async def update_page(
    session: AsyncSession,
    *,
    page: StatusPage,
    data: PageUpdate,
    sent: set[str],
    box: SecretBox,
    now: datetime,
) -> StatusPage:
    """Apply the sent fields; a null password clears it."""
    problems: Problems = null_problems(sent_values(data, sent), PAGE_NOT_NULL)
    problems += await _domain_problems(
        session,
        subdomain=data.subdomain if "subdomain" in sent else None,
        custom_domain=data.custom_domain if "custom_domain" in sent else None,
        exclude=page.id,
    )
    if problems:
        raise InvalidRequest(problems)
    for name in sent:
        value = getattr(data, name)
        if name == "password":
            page.password_encrypted = box.encrypt(value) if value is not None else None
        elif name == "navigation_links":
            page.navigation_links = [link.model_dump() for link in value]
        else:
            setattr(page, name, value)
    if problems := _password_problems(page):
        raise InvalidRequest(problems)
    page.updated_at = now
    await _flush_page(session, page)
    return page


async def delete_page(session: AsyncSession, *, page: StatusPage) -> None:
    """Delete the page and, by cascade, its sections and resources."""
    await session.delete(page)
    await session.flush()
