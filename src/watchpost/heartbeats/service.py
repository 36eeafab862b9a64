"""What heartbeats do: create, read, change, pause, delete. No HTTP in here."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import random_token
from watchpost.db import queries
from watchpost.db.deletions import delete_named
from watchpost.db.queries import team_object
from watchpost.errors import InvalidRequest
from watchpost.heartbeats.checking import deadline_after
from watchpost.heartbeats.models import Heartbeat, HeartbeatGroup
from watchpost.heartbeats.schemas import (
    HEARTBEAT_DEFAULTS,
    HEARTBEAT_NULL_RESETS,
    SERVER_TIMEZONE_MIN_PERIOD,
    HeartbeatCreate,
    HeartbeatUpdate,
    default_grace,
    parse_heartbeat_create,
    parse_heartbeat_update,
)
from watchpost.incidents import service as incidents
from watchpost.notification_fields import policy_ref_id
from watchpost.policies.models import Policy
from watchpost.problems import team_name_problems
from watchpost.validation import reference_id
from watchpost.writing import Writing

HEARTBEAT = "heartbeat"
PING_PATH = "/api/v1/heartbeat/"
TOKEN_BYTES = 24  # 192 bits: a ping URL must never be guessable


# --------------------------------------------------------------------------- heartbeats


def heartbeat_values(heartbeat: Heartbeat) -> dict[str, Any]:
    """The stored values of the writable fields, for validating a PATCH against them."""
    return {name: getattr(heartbeat, name) for name in HEARTBEAT_DEFAULTS}


async def group_problems(write: Writing, data: dict[str, Any]) -> list[tuple[str | None, str]]:
    """A 422 problem when data names a heartbeat_group_id that is not a group of the team, a
    policy_id that is not one of its escalation policies, or a team_name not the token's."""
    session, team_id = write.session, write.team_id
    # None: absent, null, or a type/range error the schema reports
    group_id = reference_id(data.get("heartbeat_group_id"))
    problems = await queries.group_problems(
        session, HeartbeatGroup, "heartbeat_group_id", team_id=team_id, group_id=group_id
    )
    problems += await queries.group_problems(
        session, Policy, "policy_id", team_id=team_id, group_id=policy_ref_id(data.get("policy_id"))
    )
    return problems + team_name_problems(data.get("team_name"), write.team_name)


def _keep_server_timezone(heartbeat: Heartbeat) -> None:
    """Periods under an hour have no server_timezone (the hosted API clears it too)."""
    if heartbeat.period < SERVER_TIMEZONE_MIN_PERIOD:
        heartbeat.server_timezone = None


async def _flush(session: AsyncSession, *, group_id: int | None) -> None:
    try:
        await session.flush()
    except IntegrityError:
        if group_id is None:
            raise
        # the group was deleted by a concurrent request after it was checked
        raise InvalidRequest(queries.not_a_group("heartbeat_group_id", group_id)) from None


def _pause(heartbeat: Heartbeat, now: datetime) -> None:
    heartbeat.paused = True
    heartbeat.paused_at = now
    heartbeat.status = "paused"
    heartbeat.next_due_at = None


def _resume(heartbeat: Heartbeat, now: datetime) -> None:
    """Back to pending if never pinged; else up, with a full period + grace from now."""
    heartbeat.paused = False
    heartbeat.paused_at = None
    if heartbeat.last_ping_at is None:
        heartbeat.status = "pending"
        heartbeat.next_due_at = None
    else:
        heartbeat.status = "up"
        heartbeat.next_due_at = deadline_after(heartbeat, now)


def set_paused(heartbeat: Heartbeat, paused: bool, now: datetime) -> bool:
    """Pause or resume as of now; False when it already was in that state."""
    if paused == heartbeat.paused:
        return False
    if paused:
        _pause(heartbeat, now)
    else:
        _resume(heartbeat, now)
    return True


async def create_heartbeat(
    session: AsyncSession, *, team_id: int, data: HeartbeatCreate, now: datetime
) -> Heartbeat:
    """A new heartbeat with a fresh ping token, pending until its first ping (or paused)."""
    values = {
        name: default if getattr(data, name) is None else getattr(data, name)
        for name, default in HEARTBEAT_DEFAULTS.items()
    }
    grace = data.grace if data.grace is not None else default_grace(values["period"])
    heartbeat = Heartbeat(
        team_id=team_id,
        name=data.name,
        token=random_token("", TOKEN_BYTES),
        grace=grace,
        status="pending",
        paused_at=None,
        last_ping_at=None,
        next_due_at=None,
        created_at=now,
        updated_at=now,
        **{**values, "paused": False},
    )
    _keep_server_timezone(heartbeat)
    if values["paused"]:
        _pause(heartbeat, now)
    session.add(heartbeat)
    await _flush(session, group_id=data.heartbeat_group_id)
    return heartbeat


async def get_heartbeat(session: AsyncSession, *, team_id: int, heartbeat_id: int) -> Heartbeat:
    return await team_object(session, Heartbeat, HEARTBEAT, team_id=team_id, object_id=heartbeat_id)


async def update_heartbeat(
    write: Writing, *, heartbeat: Heartbeat, data: HeartbeatUpdate, sent: Sequence[str]
) -> Heartbeat:
    """Apply a validated PATCH. A new period or grace moves the deadline by the difference."""
    old_window = heartbeat.period + heartbeat.grace
    for name in sent:
        value = getattr(data, name)
        if name in ("paused", "team_name"):
            continue
        if value is None and name in HEARTBEAT_NULL_RESETS:
            value = HEARTBEAT_DEFAULTS[name]
        setattr(heartbeat, name, value)
    _keep_server_timezone(heartbeat)
    if heartbeat.next_due_at is not None:
        heartbeat.next_due_at += timedelta(seconds=heartbeat.period + heartbeat.grace - old_window)
    if "paused" in sent and data.paused is not None:
        set_paused(heartbeat, data.paused, write.now)
    heartbeat.updated_at = write.now
    await _flush(write.session, group_id=data.heartbeat_group_id)
    return heartbeat


async def create_from_body(write: Writing, body: dict[str, Any]) -> Heartbeat:
    """A heartbeat from a request body, every rule checked (an InvalidRequest naming every
    problem): the one path the API and the console both create heartbeats by."""
    data = parse_heartbeat_create(body, group_problems=await group_problems(write, body))
    return await create_heartbeat(write.session, team_id=write.team_id, data=data, now=write.now)


async def update_from_body(write: Writing, heartbeat: Heartbeat, body: dict[str, Any]) -> Heartbeat:
    """A PATCH body checked against the heartbeat as it will be, then stored (API and console)."""
    problems = await group_problems(write, body)
    data = parse_heartbeat_update(body, heartbeat_values(heartbeat), group_problems=problems)
    sent = list(data.model_fields_set)
    return await update_heartbeat(write, heartbeat=heartbeat, data=data, sent=sent)


async def delete_heartbeat(write: Writing, heartbeat: Heartbeat) -> None:
    """Delete the heartbeat, its check history and the status page resources showing it; its
    incidents stay, as history, and an open one is resolved (no ping can resolve it now)."""
    await incidents.forget_checked(
        write.session, subject_type="heartbeat", subject_id=heartbeat.id, now=write.now
    )
    await delete_named(write.session, heartbeat, item_type="Heartbeat")
