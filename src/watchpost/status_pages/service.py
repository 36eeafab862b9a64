"""What status pages, sections and resources do: create, read, change, delete. No HTTP."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.crypto import SecretBox
from watchpost.db.queries import one_or_404
from watchpost.errors import InvalidRequest
from watchpost.status_pages.availability import Summary, aggregate_state
from watchpost.status_pages.kinds import (
    DEFAULT_MARK_AS_DEGRADED_FOR,
    DEFAULT_MARK_AS_DOWN_FOR,
    DEFAULT_WIDGET,
    HISTORY_WIDGETS,
    MANUAL,
    MANUAL_DEFAULT_NAME,
    MATCHING,
    RESOURCE_KINDS,
    is_supported,
    model_of,
    widget_from_history,
)
from watchpost.status_pages.limits import MAX_RESOURCES, MAX_SECTIONS, check_room
from watchpost.status_pages.models import StatusPage, StatusPageResource, StatusPageSection
from watchpost.status_pages.ordering import PositionHeld, arrange
from watchpost.status_pages.records import summaries
from watchpost.status_pages.schemas import (
    PAGE_DEFAULTS,
    PAGE_NOT_NULL,
    RESOURCE_NOT_NULL,
    SECTION_NOT_NULL,
    MetadataRuleIn,
    PageCreate,
    PageUpdate,
    ResourceFields,
    SectionCreate,
    SectionUpdate,
)
from watchpost.teams.models import User
from watchpost.validation import parse_id

PAGE = "status_page"
SECTION = "status_page_section"
RESOURCE = "status_page_resource"

Problems = list[tuple[str | None, str]]


# ---------------------------------------------------------------------------- pages


def page_attributes(page: StatusPage, *, team_name: str, state: str) -> dict[str, Any]:
    return {
        "company_name": page.company_name,
        "company_url": page.company_url,
        "contact_url": page.contact_url,
        "logo_url": page.logo_url,
        "timezone": page.timezone,
        "subdomain": page.subdomain,
        "custom_domain": page.custom_domain,
        "history": page.history,
        "min_incident_length": page.min_incident_length,
        "announcement": page.announcement,
        "password_enabled": page.password_enabled,
        "hide_from_search_engines": page.hide_from_search_engines,
        "theme": page.theme,
        "layout": page.layout,
        "design": page.design,
        "navigation_links": page.navigation_links,
        "aggregate_state": state,
        "team_name": team_name,
        "created_at": isoformat_ms(page.created_at),
        "updated_at": isoformat_ms(page.updated_at),
    }


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


def pages_of(team_id: int) -> Select[tuple[StatusPage]]:
    return select(StatusPage).where(StatusPage.team_id == team_id)


async def get_page(
    session: AsyncSession, *, team_id: int, page_id: int, lock: bool = False
) -> StatusPage:
    """The team's page; lock=True serialises position changes within it (PostgreSQL)."""
    stmt = pages_of(team_id).where(StatusPage.id == page_id)
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
    problems: Problems = [
        (name, f"{name} must not be null")
        for name in PAGE_NOT_NULL
        if name in sent and getattr(data, name) is None
    ]
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


async def page_state(session: AsyncSession, *, page: StatusPage, now: datetime) -> str:
    """aggregate_state: the worst current status among the page's resources."""
    resources = (
        await session.scalars(
            select(StatusPageResource).where(StatusPageResource.status_page_id == page.id)
        )
    ).all()
    targets = await load_targets(session, resources)
    found = await summaries(session, resources, targets, page=page, now=now, days=1)
    return aggregate_state(summary.status for summary in found.values())


# ------------------------------------------------------------------------- sections


def section_attributes(section: StatusPageSection) -> dict[str, Any]:
    return {
        "name": section.name,
        "position": section.position,
        "fixed_position": section.fixed_position,
        "status_page_id": section.status_page_id,
        "created_at": isoformat_ms(section.created_at),
        "updated_at": isoformat_ms(section.updated_at),
    }


def sections_of(*, team_id: int, page_id: int) -> Select[tuple[StatusPageSection]]:
    return select(StatusPageSection).where(
        StatusPageSection.team_id == team_id, StatusPageSection.status_page_id == page_id
    )


async def get_section(
    session: AsyncSession, *, team_id: int, page_id: int, section_id: int
) -> StatusPageSection:
    return await one_or_404(
        session,
        sections_of(team_id=team_id, page_id=page_id).where(StatusPageSection.id == section_id),
        SECTION,
        section_id,
    )


async def _sections(
    session: AsyncSession, page: StatusPage, *, exclude: int | None = None
) -> list[StatusPageSection]:
    stmt = sections_of(team_id=page.team_id, page_id=page.id).order_by(
        StatusPageSection.position, StatusPageSection.id
    )
    if exclude is not None:
        stmt = stmt.where(StatusPageSection.id != exclude)
    return list((await session.scalars(stmt)).all())


def _place(siblings: Sequence[Any], item: Any, target: int | None, what: str) -> None:
    try:
        arrange(siblings, item, target)
    except PositionHeld as exc:
        raise InvalidRequest.field(
            "position",
            f"{target} is held by a fixed-position {what} (id {exc.holder.id}); "
            "choose another position",
        ) from None


async def create_section(
    session: AsyncSession, *, page: StatusPage, data: SectionCreate, now: datetime
) -> StatusPageSection:
    """A new section at data.position (others shift down) or at the end."""
    await check_room(session, page=page, what="sections", limit=MAX_SECTIONS)
    section = StatusPageSection(
        team_id=page.team_id,
        status_page_id=page.id,
        name=data.name.strip(),
        position=data.position or 0,
        fixed_position=data.fixed_position,
        created_at=now,
        updated_at=now,
    )
    _place(await _sections(session, page), section, data.position, "section")
    session.add(section)
    await session.flush()
    return section


async def update_section(
    session: AsyncSession,
    *,
    page: StatusPage,
    section: StatusPageSection,
    data: SectionUpdate,
    sent: set[str],
    now: datetime,
) -> StatusPageSection:
    problems: Problems = [
        (name, f"{name} must not be null")
        for name in SECTION_NOT_NULL
        if name in sent and getattr(data, name) is None
    ]
    if problems:
        raise InvalidRequest(problems)
    if data.name is not None:
        section.name = data.name.strip()
    if data.fixed_position is not None:
        section.fixed_position = data.fixed_position
    if data.position is not None:
        _place(
            await _sections(session, page, exclude=section.id), section, data.position, "section"
        )
    section.updated_at = now
    await session.flush()
    return section


async def delete_section(
    session: AsyncSession, *, page: StatusPage, section: StatusPageSection
) -> None:
    """Only an empty section can go: its resources are moved or deleted first."""
    held = await session.scalar(
        select(func.count())
        .select_from(StatusPageResource)
        .where(StatusPageResource.status_page_section_id == section.id)
    )
    if held:
        raise InvalidRequest(
            [(None, f"the section still holds {held} resources; move or delete them first")]
        )
    await session.delete(section)
    await session.flush()
    arrange(await _sections(session, page))
    await session.flush()


async def _first_section(session: AsyncSession, page: StatusPage, now: datetime) -> int:
    """The page's first section, created (unnamed) when the page has none."""
    sections = await _sections(session, page)
    if sections:
        return sections[0].id
    section = StatusPageSection(
        team_id=page.team_id,
        status_page_id=page.id,
        name="",
        position=0,
        fixed_position=False,
        created_at=now,
        updated_at=now,
    )
    session.add(section)
    await session.flush()
    return section.id


# ------------------------------------------------------------------------ resources


def _key(resource: StatusPageResource) -> tuple[str, int | None]:
    return resource.resource_type, resource.resource_id


async def load_targets(
    session: AsyncSession, resources: Sequence[StatusPageResource]
) -> dict[tuple[str, int | None], Any]:
    """The items the resources point at, one query per resource type."""
    wanted: dict[str, set[int]] = {}
    for res in resources:
        if res.resource_id is not None:
            wanted.setdefault(res.resource_type, set()).add(res.resource_id)
    found: dict[tuple[str, int | None], Any] = {}
    for resource_type, ids in wanted.items():
        model = model_of(resource_type)
        if model is None:
            continue
        for item in (await session.scalars(select(model).where(model.id.in_(ids)))).all():
            found[(resource_type, item.id)] = item
    return found


def _rule_out(rule: dict[str, Any] | None) -> dict[str, Any] | None:
    if rule is None:
        return None
    values = []
    for value in rule["values"]:
        item_id = value.get("item_id")
        values.append(
            {
                "type": value["type"],
                "item_id": str(item_id) if item_id is not None else None,
                "name": value.get("name", value.get("value")),
                "value": value.get("value"),
                "email": value.get("email"),
            }
        )
    return {"key": rule["key"], "values": values}


def public_name(resource: StatusPageResource, target: Any | None) -> str:
    if resource.public_name:
        return resource.public_name
    for attr in RESOURCE_KINDS[resource.resource_type].name_attrs:
        value = getattr(target, attr, None)
        if value:
            return str(value)
    if resource.resource_type == MANUAL:
        return MANUAL_DEFAULT_NAME
    return f"{resource.resource_type} {resource.resource_id}"


def resource_attributes(
    resource: StatusPageResource,
    *,
    target: Any | None,
    summary: Summary,
) -> dict[str, Any]:
    return {
        "status_page_section_id": resource.status_page_section_id,
        "resource_id": resource.resource_id,
        "resource_type": resource.resource_type,
        "history": resource.widget_type in HISTORY_WIDGETS,
        "widget_type": resource.widget_type,
        "public_name": public_name(resource, target),
        "explanation": resource.explanation,
        "position": resource.position,
        "fixed_position": resource.fixed_position,
        "mark_as_down_for": resource.mark_as_down_for,
        "mark_as_down_metadata_rule": _rule_out(resource.mark_as_down_metadata_rule),
        "mark_as_degraded_for": resource.mark_as_degraded_for,
        "mark_as_degraded_metadata_rule": _rule_out(resource.mark_as_degraded_metadata_rule),
        "availability": summary.availability,
        "status": summary.status,
        "status_history": summary.status_history,
        "created_at": isoformat_ms(resource.created_at),
        "updated_at": isoformat_ms(resource.updated_at),
    }


def resources_of(*, team_id: int, page_id: int) -> Select[tuple[StatusPageResource]]:
    return select(StatusPageResource).where(
        StatusPageResource.team_id == team_id, StatusPageResource.status_page_id == page_id
    )


async def get_resource(
    session: AsyncSession, *, team_id: int, page_id: int, resource_id: int
) -> StatusPageResource:
    return await one_or_404(
        session,
        resources_of(team_id=team_id, page_id=page_id).where(StatusPageResource.id == resource_id),
        RESOURCE,
        resource_id,
    )


async def _in_section(
    session: AsyncSession, section_id: int, *, exclude: int | None = None
) -> list[StatusPageResource]:
    stmt = select(StatusPageResource).where(StatusPageResource.status_page_section_id == section_id)
    if exclude is not None:
        stmt = stmt.where(StatusPageResource.id != exclude)
    return list((await session.scalars(stmt)).all())


async def _resolve_value(
    session: AsyncSession, *, team_id: int, team_name: str, where: str, item: Any
) -> tuple[dict[str, Any] | None, str | None]:
    """A request rule value as stored, or the reason it names nothing."""
    kind = item.type or ("String" if item.value is not None else None)
    if kind is None:
        return None, f"{where} needs a value, or a type and what identifies the item"
    kind = {"string": "String", "user": "User", "team": "Team"}.get(kind.lower(), kind)
    if kind == "String":
        if item.value is None or not item.value.strip():
            return None, f"{where} needs a non-blank value"
        return {"type": "String", "value": item.value}, None
    item_id = str(item.item_id) if item.item_id is not None else None
    if kind == "User":
        stmt = select(User).where(User.team_id == team_id)
        if item_id is not None:
            wanted = f"id {item_id}"
            stmt = stmt.where(User.id == (parse_id(item_id.strip()) or -1))
        elif item.email is not None:
            wanted = f"e-mail {item.email!r}"
            stmt = stmt.where(User.email == item.email.strip().lower())
        elif item.name is not None:
            wanted = f"name {item.name!r}"
            stmt = stmt.where(User.name == item.name.strip())
        else:
            return None, f"{where} must identify the user by email, name or item_id"
        users = (await session.scalars(stmt.limit(2))).all()
        if not users:
            return None, f"{where} names no user of your team with {wanted}"
        if len(users) > 1:
            return None, f"{where}: several users of your team have {wanted}; use email"
        user = users[0]
        return {"type": "User", "item_id": user.id, "name": user.name, "email": user.email}, None
    if kind == "Team":
        if item_id is None and item.name is None:
            return None, f"{where} must identify the team by name or item_id"
        if (item_id is not None and item_id != str(team_id)) or (
            item.name is not None and item.name.strip() != team_name
        ):
            wanted = f"name {item.name!r}" if item.name is not None else f"id {item_id}"
            return None, f"{where} names no team with {wanted} (only your own team can be named)"
        return {"type": "Team", "item_id": team_id, "name": team_name}, None
    return None, (
        f"{where}: metadata values of type {kind!r} are not supported by this server yet "
        "(use String, User or Team)"
    )


async def _resolve_rule(
    session: AsyncSession, *, team_id: int, team_name: str, field: str, rule: MetadataRuleIn
) -> tuple[dict[str, Any], Problems]:
    values: list[dict[str, Any]] = []
    problems: Problems = []
    for index, item in enumerate(rule.values):
        value, problem = await _resolve_value(
            session,
            team_id=team_id,
            team_name=team_name,
            where=f"{field}.values[{index}]",
            item=item,
        )
        if problem is not None:
            problems.append((field, problem))
        elif value is not None:
            values.append(value)
    return {"key": rule.key, "values": values}, problems


@dataclass
class Prepared:
    """A resource's validated values, before it is placed."""

    values: dict[str, Any]
    section_id: int | None


async def _prepare(
    session: AsyncSession,
    *,
    page: StatusPage,
    team_name: str,
    data: ResourceFields,
    sent: set[str],
    current: StatusPageResource | None,
) -> Prepared:
    """Validate a create (current None) or PATCH against the resource as it will be."""
    team_id = page.team_id
    problems: Problems = [
        (name, f"{name} must not be null")
        for name in RESOURCE_NOT_NULL
        if current is not None and name in sent and getattr(data, name) is None
    ]
    values: dict[str, Any] = {}

    # resource_type and resource_id
    resource_type = data.resource_type or (current.resource_type if current else MANUAL)
    values["resource_type"] = resource_type
    if current is None and data.resource_type is None and data.resource_id is not None:
        problems.append(("resource_type", "resource_type is required when resource_id is given"))
    if "resource_id" in sent:
        raw_id = data.resource_id
    elif current is not None and current.resource_type == resource_type:
        raw_id = current.resource_id
    else:
        raw_id = None
    resource_id: int | None = None
    kind = RESOURCE_KINDS[resource_type]
    if not is_supported(resource_type):
        problems.append(
            (
                "resource_type",
                f"resource_type {resource_type} is not supported by this server yet",
            )
        )
    elif resource_type == MANUAL:
        if raw_id is not None:
            problems.append(
                ("resource_id", "resource_id must be omitted or null for ManuallyTrackedItem")
            )
    elif raw_id is None:
        problems.append(("resource_id", f"resource_id is required for {resource_type}"))
    else:
        resource_id = parse_id(str(raw_id).strip())
        if resource_id is None:
            problems.append(("resource_id", f"resource_id must be the id of a {resource_type}"))
        else:
            model = model_of(resource_type)
            assert model is not None  # is_supported checked it
            # KEY SHARE: the item cannot be deleted until this resource is committed (and the
            # delete then removes the resource too; see references.py).
            found = await session.scalar(
                select(model.id)
                .where(model.id == resource_id, model.team_id == team_id)
                .with_for_update(read=True, key_share=True)
            )
            if found is None:
                problems.append(
                    (
                        "resource_id",
                        f"resource_id {resource_id} names no {resource_type} of your team",
                    )
                )
    values["resource_id"] = resource_id

    # widget
    widget: str
    if data.widget_type is not None:
        widget = data.widget_type
    elif data.history is not None:
        widget = widget_from_history(data.history, current.widget_type if current else None)
    else:
        widget = current.widget_type if current else DEFAULT_WIDGET
    if widget not in kind.widgets:
        problems.append(
            (
                "widget_type",
                f"widget_type {widget} does not fit resource_type {resource_type} "
                f"(it takes: {', '.join(kind.widgets)})",
            )
        )
    values["widget_type"] = widget

    # incident rules
    for prefix, default in (
        ("mark_as_down", DEFAULT_MARK_AS_DOWN_FOR),
        ("mark_as_degraded", DEFAULT_MARK_AS_DEGRADED_FOR),
    ):
        mode_field, rule_field = f"{prefix}_for", f"{prefix}_metadata_rule"
        mode = getattr(data, mode_field) or (getattr(current, mode_field) if current else default)
        values[mode_field] = mode
        sent_rule: MetadataRuleIn | None = getattr(data, rule_field)
        stored = getattr(current, rule_field) if current is not None else None
        rule: dict[str, Any] | None = None
        if sent_rule is not None:
            if mode != MATCHING:
                problems.append(
                    (rule_field, f"{rule_field} applies only when {mode_field} is {MATCHING}")
                )
            else:
                rule, rule_problems = await _resolve_rule(
                    session, team_id=team_id, team_name=team_name, field=rule_field, rule=sent_rule
                )
                problems += rule_problems
        elif mode == MATCHING:
            rule = None if rule_field in sent else stored
            if rule is None:
                problems.append(
                    (rule_field, f"{rule_field} is required when {mode_field} is {MATCHING}")
                )
        values[rule_field] = rule

    # section
    section_id = data.status_page_section_id
    if section_id is not None:
        owner = await session.scalar(
            sections_of(team_id=team_id, page_id=page.id)
            .where(StatusPageSection.id == section_id)
            .with_only_columns(StatusPageSection.id)
        )
        if owner is None:
            problems.append(
                (
                    "status_page_section_id",
                    f"status_page_section_id {section_id} names no section of this status page",
                )
            )

    if "public_name" in sent:
        values["public_name"] = (data.public_name or "").strip() or None
    if data.explanation is not None:
        values["explanation"] = data.explanation
    if data.fixed_position is not None:
        values["fixed_position"] = data.fixed_position
    if problems:
        raise InvalidRequest(problems)
    return Prepared(values=values, section_id=section_id)


async def create_resource(
    session: AsyncSession,
    *,
    page: StatusPage,
    team_name: str,
    data: ResourceFields,
    sent: set[str],
    now: datetime,
) -> StatusPageResource:
    """A new resource at data.position of its section (others shift down) or at the end."""
    await check_room(session, page=page, what="resources", limit=MAX_RESOURCES)
    prepared = await _prepare(
        session, page=page, team_name=team_name, data=data, sent=sent, current=None
    )
    section_id = prepared.section_id or await _first_section(session, page, now)
    resource = StatusPageResource(
        team_id=page.team_id,
        status_page_id=page.id,
        status_page_section_id=section_id,
        position=data.position or 0,
        **{"explanation": "", "fixed_position": False, **prepared.values},
        created_at=now,
        updated_at=now,
    )
    _place(await _in_section(session, section_id), resource, data.position, "resource")
    session.add(resource)
    await session.flush()
    return resource


async def update_resource(
    session: AsyncSession,
    *,
    page: StatusPage,
    team_name: str,
    resource: StatusPageResource,
    data: ResourceFields,
    sent: set[str],
    now: datetime,
) -> StatusPageResource:
    """Apply a PATCH; a new section or position moves the resource, keeping both contiguous."""
    prepared = await _prepare(
        session, page=page, team_name=team_name, data=data, sent=sent, current=resource
    )
    for name, value in prepared.values.items():
        setattr(resource, name, value)
    old_section = resource.status_page_section_id
    new_section = prepared.section_id or old_section
    if new_section != old_section:
        _place(await _in_section(session, new_section), resource, data.position, "resource")
        resource.status_page_section_id = new_section
        arrange(await _in_section(session, old_section, exclude=resource.id))
    elif data.position is not None:
        others = await _in_section(session, old_section, exclude=resource.id)
        _place(others, resource, data.position, "resource")
    resource.updated_at = now
    await session.flush()
    return resource


async def delete_resource(session: AsyncSession, *, resource: StatusPageResource) -> None:
    section_id = resource.status_page_section_id
    await session.delete(resource)
    await session.flush()
    arrange(await _in_section(session, section_id))
    await session.flush()
