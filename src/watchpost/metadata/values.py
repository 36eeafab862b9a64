"""Typed metadata values: what a request may send, how a reference is resolved to an item of
the team, how a value is stored, shown, and written into an incident's `metadata` dict.

A value is a `String` (its `value`) or a reference to an item of the team (`User`, `Team`,
`Policy`, `Schedule`, `PagerDutyWebhook`) named by `item_id`, `email` (users) or `name`.
The other reference types the hosted API lists name integrations Watchpost does not have:
a 422 says so.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import Field
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.errors import Problem
from watchpost.oncall.models import OnCallCalendar
from watchpost.pagerduty.models import PagerDutyIntegration
from watchpost.policies.models import Policy
from watchpost.teams.models import User, team_users
from watchpost.teams.service import Principal
from watchpost.validation import ClosedModel, Email, Id, IdText, ShortText, parse_id

MAX_VALUES: Final = 100
"""Values one key may hold."""
TYPES: Final = (
    "String",
    "User",
    "Team",
    "Policy",
    "Schedule",
    "SlackIntegration",
    "LinearIntegration",
    "JiraIntegration",
    "MicrosoftTeamsWebhook",
    "ZapierWebhook",
    "NativeWebhook",
    "PagerDutyWebhook",
)
"""The value types the hosted API knows."""
_NAMED_ITEMS: Final[dict[str, Any]] = {
    "Policy": Policy,
    "Schedule": OnCallCalendar,
    "PagerDutyWebhook": PagerDutyIntegration,
}
"""Reference types naming one of the team's items by item_id or name, and its table."""
_SHOWN: Final = ("type", "value", "item_id", "name", "email")


class MetadataValueIn(ClosedModel):
    """One value as a request sends it."""

    type: ShortText | None = Field(default=None, description="One of TYPES; default `String`.")
    value: Annotated[str, Field(max_length=1024)] | None = Field(
        default=None, description="The text of a `String` value."
    )
    item_id: Id | IdText | None = Field(default=None, description="The id of the item referenced.")
    name: ShortText | None = Field(default=None, description="The name of the item referenced.")
    email: Email | None = Field(default=None, description="The e-mail of the user referenced.")


def shown(value: dict[str, Any]) -> dict[str, Any]:
    """A stored value as the API shows it: its set fields, item_id as it was sent."""
    out = {name: value[name] for name in _SHOWN if value.get(name) is not None}
    if "item_id" in out and not value.get("numeric_id"):
        out["item_id"] = str(out["item_id"])
    return out


def incident_text(value: dict[str, Any]) -> str:
    """A stored value as the string an incident's `metadata` holds: a String's text, a
    user's e-mail, any other item's name (its id when it has none)."""
    if value["type"] == "String":
        return str(value["value"])
    if value["type"] == "User" and value.get("email"):
        return str(value["email"])
    return str(value.get("name") or value.get("item_id"))


def same_value(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two stored values name the same thing (a merge keeps one)."""
    keys = ("type", "value") if a["type"] == "String" else ("type", "item_id")
    return all(a.get(k) == b.get(k) for k in keys)


async def resolved(
    session: AsyncSession, caller: Principal, field: str, values: list[MetadataValueIn]
) -> tuple[list[dict[str, Any]], list[Problem]]:
    """The values as stored, or the problems of those that name nothing. All values of one
    key share one type, as the hosted API requires."""
    stored: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for index, item in enumerate(values):
        where = f"{field}[{index}]"
        value, problem = await _resolved(session, caller, where, item)
        if problem is not None:
            problems.append((field, problem))
        elif value is not None:
            stored.append(value)
    kinds = {value["type"] for value in stored}
    if len(kinds) > 1:
        problems.append((field, f"{field}: all values of one key must have the same type"))
    return stored, problems


async def _resolved(
    session: AsyncSession, caller: Principal, where: str, item: MetadataValueIn
) -> tuple[dict[str, Any] | None, str | None]:
    kind = item.type if item.type is not None else "String"
    if kind not in TYPES:
        return None, f"{where}.type must be one of {', '.join(TYPES)}"
    if kind == "String":
        if item.item_id is not None or item.name is not None or item.email is not None:
            return None, f"{where}: a String value takes only `value`"
        if item.value is None or not item.value.strip():
            return None, f"{where}: a String value needs a non-blank `value`"
        return {"type": "String", "value": item.value}, None
    if item.value is not None:
        return None, f"{where}: a {kind} value takes item_id, name or email, not `value`"
    if item.item_id is None and item.name is None and item.email is None:
        return None, f"{where}: a {kind} value needs item_id, name or email"
    if item.email is not None and kind != "User":
        return None, f"{where}: only a User value takes `email`"
    item_id: int | None = None
    if item.item_id is not None:
        item_id = parse_id(str(item.item_id).strip())
        if item_id is None:
            return None, f"{where}.item_id must be an id"
    if kind == "User":
        found = await _user(session, caller, item, item_id)
    elif kind == "Team":
        found = _team(caller, item, item_id)
    elif kind in _NAMED_ITEMS:
        found = await _named(session, caller, _NAMED_ITEMS[kind], kind, item, item_id)
    else:
        return None, f"{where}: values of type {kind} are not supported by this server"
    if found is None:
        return None, f"{where} names no {kind} of your team"
    if isinstance(item.item_id, int):
        found["numeric_id"] = True
    return found, None


async def _user(
    session: AsyncSession, caller: Principal, item: MetadataValueIn, item_id: int | None
) -> dict[str, Any] | None:
    stmt = team_users(caller.team_id)
    if item_id is not None:
        stmt = stmt.where(User.id == item_id)
    elif item.email is not None:
        stmt = stmt.where(func.lower(User.email) == item.email.strip().lower())
    else:
        stmt = stmt.where(User.name == (item.name or "").strip())
    users = (await session.scalars(stmt.order_by(User.id).limit(1))).all()
    if not users:
        return None
    return {"type": "User", "item_id": users[0].id, "name": users[0].name, "email": users[0].email}


def _team(caller: Principal, item: MetadataValueIn, item_id: int | None) -> dict[str, Any] | None:
    """Only the caller's own team can be named."""
    if item_id is not None and item_id != caller.team_id:
        return None
    if item.name is not None and item.name.strip() != caller.team_name:
        return None
    return {"type": "Team", "item_id": caller.team_id, "name": caller.team_name}


async def _named(
    session: AsyncSession,
    caller: Principal,
    model: Any,
    kind: str,
    item: MetadataValueIn,
    item_id: int | None,
) -> dict[str, Any] | None:
    stmt = select(model.id, model.name).where(model.team_id == caller.team_id)
    if item_id is not None:
        stmt = stmt.where(model.id == item_id)
    else:
        stmt = stmt.where(model.name == (item.name or "").strip())
    row = (await session.execute(stmt.order_by(model.id).limit(1))).first()
    if row is None:
        return None
    return {"type": kind, "item_id": row[0], "name": row[1]}
