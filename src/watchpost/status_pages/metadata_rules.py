"""Metadata rules of a status page resource: which incidents mark it down or degraded.

A rule names values (a string, a user of the team, the team itself, an escalation policy of
the team); a request's values are resolved to what is stored, and stored rules are shown back
with string ids, or with a number where the request sent the id as a number (as the hosted
API's Terraform provider does, and reads back: it ignores an id that comes back a string).
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.policies.models import Policy
from watchpost.status_pages.models import StatusPageResource
from watchpost.status_pages.pages import Problems
from watchpost.status_pages.resource_types import (
    DEFAULT_MARK_AS_DEGRADED_FOR,
    DEFAULT_MARK_AS_DOWN_FOR,
    MATCHING,
)
from watchpost.status_pages.schemas import MetadataRuleIn, ResourceFields
from watchpost.teams.models import User, team_users
from watchpost.validation import parse_id


def rule_out(rule: dict[str, Any] | None) -> dict[str, Any] | None:
    if rule is None:
        return None
    values = []
    for value in rule["values"]:
        item_id = value.get("item_id")
        if item_id is not None and not value.get("numeric_id"):
            item_id = str(item_id)
        values.append(
            {
                "type": value["type"],
                "item_id": item_id,
                "name": value.get("name", value.get("value")),
                "value": value.get("value"),
                "email": value.get("email"),
            }
        )
    return {"key": rule["key"], "values": values}


T = TypeVar("T")

Resolved = tuple[dict[str, Any] | None, str | None]
"""A rule value as stored, or the reason it names nothing."""


async def _resolve_value(
    session: AsyncSession, *, team_id: int, team_name: str, where: str, item: Any
) -> Resolved:
    """A request rule value as stored, or the reason it names nothing."""
    kind = item.type or ("String" if item.value is not None else None)
    if kind is None:
        return None, f"{where} needs a value, or a type and what identifies the item"
    kind = {"string": "String", "user": "User", "team": "Team", "policy": "Policy"}.get(
        kind.lower(), kind
    )
    if kind == "String":
        if item.value is None or not item.value.strip():
            return None, f"{where} needs a non-blank value"
        return {"type": "String", "value": item.value}, None
    item_id = str(item.item_id) if item.item_id is not None else None
    if kind == "User":
        found = await _user_value(session, team_id=team_id, where=where, item=item, item_id=item_id)
    elif kind == "Team":
        found = _team_value(
            team_id=team_id, team_name=team_name, where=where, item=item, item_id=item_id
        )
    elif kind == "Policy":
        found = await _policy_value(
            session, team_id=team_id, where=where, item=item, item_id=item_id
        )
    else:
        return None, (
            f"{where}: metadata values of type {kind!r} are not supported by this server yet "
            "(use String, User, Team or Policy)"
        )
    stored, problem = found
    if stored is not None and isinstance(item.item_id, int):
        stored["numeric_id"] = True  # shown back as the number it was sent as
    return stored, problem


async def _the_one(
    session: AsyncSession,
    stmt: Select[tuple[T]],
    where: str,
    wanted: str,
    kinds: tuple[str, str],
    use: str,
) -> tuple[T, None] | tuple[None, str]:
    """The one row of the team stmt finds, or why there is none: no row (of `kinds`, singular
    and plural) with `wanted`, or several (then the value should say `use` instead)."""
    found = (await session.scalars(stmt.limit(2))).all()
    if not found:
        return None, f"{where} names no {kinds[0]} of your team with {wanted}"
    if len(found) > 1:
        return None, f"{where}: several {kinds[1]} of your team have {wanted}; use {use}"
    return found[0], None


async def _policy_value(
    session: AsyncSession, *, team_id: int, where: str, item: Any, item_id: str | None
) -> Resolved:
    """The one escalation policy of the team the value names, by id or name."""
    stmt = select(Policy).where(Policy.team_id == team_id)
    if item_id is not None:
        wanted = f"id {item_id}"
        stmt = stmt.where(Policy.id == (parse_id(item_id.strip()) or -1))
    elif item.name is not None:
        wanted = f"name {item.name!r}"
        stmt = stmt.where(Policy.name == item.name.strip())
    else:
        return None, f"{where} must identify the policy by name or item_id"
    policy, problem = await _the_one(
        session, stmt, where, wanted, ("escalation policy", "escalation policies"), "item_id"
    )
    if policy is None:
        return None, problem
    return {"type": "Policy", "item_id": policy.id, "name": policy.name}, None


async def _user_value(
    session: AsyncSession, *, team_id: int, where: str, item: Any, item_id: str | None
) -> Resolved:
    """The one user of the team the value names, by id, e-mail or name."""
    stmt = team_users(team_id)
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
    user, problem = await _the_one(session, stmt, where, wanted, ("user", "users"), "email")
    if user is None:
        return None, problem
    return {"type": "User", "item_id": user.id, "name": user.name, "email": user.email}, None


def _team_value(
    *, team_id: int, team_name: str, where: str, item: Any, item_id: str | None
) -> Resolved:
    """The caller's own team, by name or id: no other team can be named."""
    if item_id is None and item.name is None:
        return None, f"{where} must identify the team by name or item_id"
    if (item_id is not None and item_id != str(team_id)) or (
        item.name is not None and item.name.strip() != team_name
    ):
        wanted = f"name {item.name!r}" if item.name is not None else f"id {item_id}"
        return None, f"{where} names no team with {wanted} (only your own team can be named)"
    return {"type": "Team", "item_id": team_id, "name": team_name}, None


async def resolve_rule(
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


async def incident_rules(
    session: AsyncSession,
    *,
    team_id: int,
    team_name: str,
    data: ResourceFields,
    sent: set[str],
    current: StatusPageResource | None,
) -> tuple[dict[str, Any], Problems]:
    """mark_as_down_for / mark_as_degraded_for and their rules, as the resource will have them.

    A rule is sent only with the matching mode, and the matching mode needs one (sent or kept).
    """
    values: dict[str, Any] = {}
    problems: Problems = []
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
                rule, rule_problems = await resolve_rule(
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
    return values, problems
