"""What incoming webhooks do as objects: create, read, change, delete (and what e-mail
integrations share with them). No HTTP here."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import random_token
from watchpost.db import queries
from watchpost.db.deletions import delete_named
from watchpost.errors import InvalidRequest, Problem
from watchpost.incidents import service as incidents
from watchpost.incoming.models import IncomingWebhook, IntegrationColumns
from watchpost.incoming.schemas import (
    FIELD_LISTS,
    RULE_LISTS,
    RULE_TYPES,
    SETTINGS,
    SINGLE_FIELDS,
    TYPE,
    WEBHOOK_TARGETS,
    WebhookCreate,
    WebhookFields,
    WebhookUpdate,
    stored,
)
from watchpost.listing import Resource, resource
from watchpost.notification_fields import NOTIFICATION_DEFAULTS, policy_ref_out
from watchpost.plain_objects import TeamObjects, added, stamps
from watchpost.policies.models import Policy
from watchpost.problems import team_name_problems
from watchpost.teams.service import Principal

RECEIVE_PATH: Final = "/api/v1/incoming-webhook/"
"""The public URL's path before the token."""
TOKEN_BYTES: Final = 24
"""192 bits: the URL must never be guessable."""
DEFAULT_NAME: Final = "Incoming webhook"
DEFAULTS: Final[dict[str, Any]] = {
    **NOTIFICATION_DEFAULTS,
    "recovery_period": 0,
    "paused": False,
    **dict.fromkeys(RULE_TYPES, "unused"),
    **dict.fromkeys(SINGLE_FIELDS),
}
"""What an attribute not sent on create is (the rule and field lists: empty)."""
LISTS: Final = (*RULE_LISTS, *FIELD_LISTS)
STRUCTURED: Final = frozenset((*RULE_LISTS, *SINGLE_FIELDS, *FIELD_LISTS))
_AS_STORED: Final = (
    "call",
    "sms",
    "email",
    "push",
    "critical_alert",
    "team_wait",
    "recovery_period",
    "paused",
)
"""Attributes shown as their columns hold them (after the name and policy_id)."""
_OBJECTS: Final = TeamObjects(IncomingWebhook, TYPE)
page, get = _OBJECTS.page, _OBJECTS.get


def shared_attributes(row: IntegrationColumns) -> dict[str, Any]:
    """The attributes incoming webhooks and e-mail integrations share."""
    return {
        "name": row.name,
        "policy_id": policy_ref_out(row.policy_id),
        **{name: getattr(row, name) for name in (*_AS_STORED, *RULE_TYPES, *sorted(STRUCTURED))},
    }


def render(row: IncomingWebhook, team_name: str, public_base: str) -> Resource:
    attributes: dict[str, Any] = {
        **shared_attributes(row),
        "url": f"{public_base}{RECEIVE_PATH}{row.token}",
        "sample_query_string": row.sample_query_string,
        "sample_headers": row.sample_headers,
        "sample_body": row.sample_body,
        **stamps(row, team_name),
    }
    return resource(TYPE, row.id, attributes)


def _rule_problems(values: dict[str, Any], targets: frozenset[str]) -> list[Problem]:
    """`all` and `any` need a rule to hold (the hosted API's 422); each rule and field looks
    at a target of its kind of integration."""
    problems: list[Problem] = [
        (rules, f"{kind} {values[kind]} needs at least one of {rules}")
        for kind, rules in zip(RULE_TYPES, RULE_LISTS, strict=True)
        if values[kind] in ("all", "any") and not values[rules]
    ]
    allowed = ", ".join(sorted(targets))
    for name in sorted(STRUCTURED):
        value = values[name]
        items = enumerate(value) if isinstance(value, list) else [(None, value)] if value else []
        for index, item in items:
            key = "rule_target" if "rule_target" in item else "field_target"
            where = f"{name}.{key}" if index is None else f"{name}.{index}.{key}"
            if item.get(key) not in targets:
                problems.append((name, f"{where} {item.get(key)} is not one of {allowed} here"))
    return problems


async def problems(
    db: AsyncSession,
    caller: Principal,
    data: WebhookFields,
    values: dict[str, Any],
    targets: frozenset[str],
) -> None:
    """A 422 naming every problem of the values about to be stored."""
    found = team_name_problems(data.team_name, caller.team_name)
    found += await queries.group_problems(
        db, Policy, "policy_id", team_id=caller.team_id, group_id=values["policy_id"]
    )
    found += _rule_problems(values, targets)
    if found:
        raise InvalidRequest(found)


def _sent(data: WebhookFields) -> dict[str, Any]:
    """The sent attributes as stored (rules and fields as plain objects)."""
    names = data.model_fields_set - {"team_name"}
    return {
        name: stored(getattr(data, name)) if name in STRUCTURED else getattr(data, name)
        for name in names
    }


async def created_values(
    db: AsyncSession,
    caller: Principal,
    data: WebhookCreate,
    default_name: str,
    targets: frozenset[str],
) -> dict[str, Any]:
    """Every shared column's value for a create body, checked (a 422 naming every problem)."""
    values = {**DEFAULTS, **{name: [] for name in LISTS}}
    values |= {name: value for name, value in _sent(data).items() if value is not None}
    for name in SINGLE_FIELDS:  # null: no such field
        values[name] = stored(getattr(data, name))
    values["name"] = data.name or default_name
    if "policy_id" in data.model_fields_set:
        values["policy_id"] = data.policy_id
    await problems(db, caller, data, values, targets)
    return values


async def apply_change(
    db: AsyncSession,
    caller: Principal,
    row: IntegrationColumns,
    now: datetime,
    data: WebhookUpdate,
    targets: frozenset[str],
) -> None:
    """The sent attributes change; a null list is an empty one, a null field none."""
    sent = _sent(data)
    for name in LISTS:
        if name in sent and sent[name] is None:
            sent[name] = []
    current = {name: getattr(row, name) for name in (*DEFAULTS, *LISTS, *SETTINGS)}
    await problems(db, caller, data, {**current, **sent}, targets)
    for name, value in sent.items():
        setattr(row, name, value)
    setattr(row, "updated_at", now)  # noqa: B010 (a mixin: the row's own column)
    await db.flush()


async def make(
    db: AsyncSession, caller: Principal, now: datetime, data: WebhookCreate
) -> IncomingWebhook:
    values = await created_values(db, caller, data, DEFAULT_NAME, WEBHOOK_TARGETS)
    token = random_token("", TOKEN_BYTES)
    row = IncomingWebhook(team_id=caller.team_id, token=token, **values)
    return await added(db, row, now)


async def change(
    db: AsyncSession, caller: Principal, row: IncomingWebhook, now: datetime, data: WebhookUpdate
) -> IncomingWebhook:
    await apply_change(db, caller, row, now, data, WEBHOOK_TARGETS)
    return row


async def remove(db: AsyncSession, row: IncomingWebhook, now: datetime) -> None:
    """Delete the webhook and the status page resources showing it; its incidents stay, as
    history, and an open one is resolved (no request can resolve it now)."""
    await incidents.forget_checked(db, subject_type="incoming_webhook", subject_id=row.id, now=now)
    await delete_named(db, row, item_type="IncomingWebhook")
