"""Status pages: unique domains, the password; create, read, change, delete."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import hash_password, on_hashing_thread
from watchpost.db.queries import one_or_404, team_rows
from watchpost.errors import InvalidRequest
from watchpost.listing import Page, PageRequest, team_page
from watchpost.plain_groups import reference_problems
from watchpost.problems import null_problems, sent_values
from watchpost.status_pages.models import StatusPage, StatusPageGroup
from watchpost.status_pages.schemas import (
    PAGE_DEFAULTS,
    PAGE_NOT_NULL,
    PageCreate,
    PageFields,
    PageUpdate,
)
from watchpost.writing import Writing

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
    if page.password_enabled and page.password_hash is None and page.password_encrypted is None:
        return [("password", "password is required when password_enabled is true")]
    if page.password_enabled and page.require_sso:
        return [("require_sso", "require_sso and password_enabled cannot both be true")]
    return []


# Names a request may use for one column: (column, the other name).
ALIASES = {"logo_remote_url": "logo_url", "dark_logo_remote_url": "dark_logo_url"}


def _alias_problems(data: PageFields, sent: set[str]) -> Problems:
    problems: Problems = []
    for alias, name in ALIASES.items():
        if alias in sent and name in sent and getattr(data, alias) != getattr(data, name):
            problems.append((alias, f"{alias} and {name} name the same logo: send one"))
    return problems


async def _column_values(data: PageFields, sent: set[str]) -> dict[str, Any]:
    """The columns the sent fields set (aliases folded, the password hashed, lists as JSON)."""
    values: dict[str, Any] = {}
    for name in sent:
        value = getattr(data, name)
        if name in ALIASES:
            values[ALIASES[name]] = value
        elif name == "password":
            values["password_encrypted"] = None  # one from before hashing goes for good
            if value:
                values["password_hash"] = await on_hashing_thread(hash_password, value)
            else:
                values["password_hash"] = None
                if value == "":  # the hosted API: an empty password disables protection
                    values["password_enabled"] = False
        elif name == "navigation_links":
            values[name] = [link.model_dump() for link in value]
        else:
            values[name] = value
    return values


async def group_problems(session: AsyncSession, team_id: int, group_id: int | None) -> Problems:
    """Why group_id names no status page group of the team (nothing for None); a group it
    names stays until the transaction ends (its row is locked against deletion)."""
    return await reference_problems(
        session, StatusPageGroup, "status_page_group_id", team_id=team_id, ref=group_id
    )


async def _flush_page(session: AsyncSession, page: StatusPage) -> None:
    try:
        await session.flush()
    except IntegrityError:  # a concurrent write took the subdomain or domain first
        raise InvalidRequest(
            [("subdomain", "subdomain or custom_domain is already taken")]
        ) from None


async def create_page(write: Writing, data: PageCreate) -> StatusPage:
    """A new page (its company name the team's unless sent); no sections until one is created
    or the first resource is added."""
    session, team_id, now = write.session, write.team_id, write.now
    sent = {name for name in data.model_fields_set if getattr(data, name) is not None}
    problems = _alias_problems(data, sent)
    if problems:
        raise InvalidRequest(problems)
    values = {
        name: list(default) if isinstance(default, list) else default
        for name, default in PAGE_DEFAULTS.items()
    }
    values.update(await _column_values(data, sent))
    values.setdefault("company_name", write.team_name)
    page = StatusPage(team_id=team_id, **values, created_at=now, updated_at=now)
    problems = await _domain_problems(
        session, subdomain=page.subdomain, custom_domain=page.custom_domain, exclude=None
    )
    problems += await group_problems(session, team_id, data.status_page_group_id)
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
    now: datetime,
) -> StatusPage:
    """Apply the sent fields. A null password removes it (a 422 while protection is on);
    "" removes it and turns protection off."""
    problems: Problems = null_problems(sent_values(data, sent), PAGE_NOT_NULL)
    problems += _alias_problems(data, sent)
    problems += await _domain_problems(
        session,
        subdomain=data.subdomain if "subdomain" in sent else None,
        custom_domain=data.custom_domain if "custom_domain" in sent else None,
        exclude=page.id,
    )
    if problems:
        raise InvalidRequest(problems)
    values = await _column_values(data, sent)
    if problems := await group_problems(session, page.team_id, values.get("status_page_group_id")):
        raise InvalidRequest(problems)
    for name, value in values.items():
        setattr(page, name, value)
    # Checked only when the request touches them: a page kept from before passwords were
    # hashed (migration 0022) can still change its other attributes.
    touched = sent & {"password", "password_enabled", "require_sso"}
    if touched and (problems := _password_problems(page)):
        raise InvalidRequest(problems)
    page.updated_at = now
    await _flush_page(session, page)
    return page


async def delete_page(session: AsyncSession, *, page: StatusPage) -> None:
    """Delete the page and, by cascade, its sections and resources."""
    await session.delete(page)
    await session.flush()
