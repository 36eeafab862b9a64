"""What heartbeats and heartbeat groups do: create, read, change, delete. No HTTP in here."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.crypto import random_token
from watchpost.db.queries import one_or_404
from watchpost.heartbeats.models import Heartbeat, HeartbeatGroup
from watchpost.heartbeats.schemas import (
    GROUP_DEFAULTS,
    HEARTBEAT_DEFAULTS,
    HEARTBEAT_NULL_RESETS,
    GroupCreate,
    GroupUpdate,
    HeartbeatCreate,
    HeartbeatUpdate,
    default_grace,
)
from watchpost.history import service as history
from watchpost.http.errors import InvalidRequest
from watchpost.incidents import service as incidents
from watchpost.status_pages.references import delete_shown
from watchpost.validation import reference_id

HEARTBEAT = "heartbeat"
GROUP = "heartbeat_group"
PING_PATH = "/api/v1/heartbeat/"
TOKEN_BYTES = 24  # 192 bits: a ping URL must never be guessable


# --------------------------------------------------------------------------- heartbeats


def heartbeat_values(heartbeat: Heartbeat) -> dict[str, Any]:
    """The stored values of the writable fields, for validating a PATCH against them."""
    return {name: getattr(heartbeat, name) for name in HEARTBEAT_DEFAULTS}


async def group_problems(
    session: AsyncSession, *, team_id: int, data: dict[str, Any]
) -> list[tuple[str | None, str]]:
    """A 422 problem when data names a heartbeat_group_id that is not a group of the team."""
    value = reference_id(data.get("heartbeat_group_id"))
    if value is None:
        return []  # absent, null, or a type/range error the schema reports
    found = await session.scalar(
        groups_of(team_id).with_only_columns(HeartbeatGroup.id).where(HeartbeatGroup.id == value)
    )
    return _not_a_group(value) if found is None else []


async def _flush(session: AsyncSession, *, group_id: int | None) -> None:
    try:
        await session.flush()
    except IntegrityError:
        if group_id is None:
            raise
        # the group was deleted by a concurrent request after it was checked
        raise InvalidRequest(_not_a_group(group_id)) from None


def _not_a_group(group_id: int) -> list[tuple[str | None, str]]:
    return [
        (
            "heartbeat_group_id",
            f"heartbeat_group_id {group_id} is not a heartbeat group of this team",
        )
    ]


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
        heartbeat.next_due_at = now + timedelta(seconds=heartbeat.period + heartbeat.grace)


def _set_paused(heartbeat: Heartbeat, paused: bool, now: datetime) -> bool:
    """Pause or resume; False when it already was in that state."""
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
    if values["paused"]:
        _pause(heartbeat, now)
    session.add(heartbeat)
    await _flush(session, group_id=data.heartbeat_group_id)
    return heartbeat


def heartbeats_of(team_id: int) -> Select[tuple[Heartbeat]]:
    return select(Heartbeat).where(Heartbeat.team_id == team_id)


async def get_heartbeat(session: AsyncSession, *, team_id: int, heartbeat_id: int) -> Heartbeat:
    return await one_or_404(
        session, heartbeats_of(team_id).where(Heartbeat.id == heartbeat_id), HEARTBEAT, heartbeat_id
    )


async def update_heartbeat(
    session: AsyncSession,
    *,
    heartbeat: Heartbeat,
    data: HeartbeatUpdate,
    sent: Sequence[str],
    now: datetime,
) -> Heartbeat:
    """Apply a validated PATCH. A new period or grace moves the deadline by the difference."""
    old_window = heartbeat.period + heartbeat.grace
    for name in sent:
        value = getattr(data, name)
        if name == "paused":
            continue
        if value is None and name in HEARTBEAT_NULL_RESETS:
            value = HEARTBEAT_DEFAULTS[name]
        setattr(heartbeat, name, value)
    if heartbeat.next_due_at is not None:
        heartbeat.next_due_at += timedelta(seconds=heartbeat.period + heartbeat.grace - old_window)
    if "paused" in sent and data.paused is not None:
        _set_paused(heartbeat, data.paused, now)
    heartbeat.updated_at = now
    await _flush(session, group_id=data.heartbeat_group_id)
    return heartbeat


async def delete_heartbeat(session: AsyncSession, *, heartbeat: Heartbeat, now: datetime) -> None:
    """Delete the heartbeat, its check history and the status page resources showing it; its
    incidents stay, as history, and an open one is resolved (no ping can resolve it now)."""
    await incidents.resolve_for_deleted(session, now=now, heartbeat_id=heartbeat.id)
    await history.forget(session, subject_type="heartbeat", subject_id=heartbeat.id)
    await delete_shown(session, heartbeat, resource_type="Heartbeat")


# --------------------------------------------------------------------- heartbeat groups


def group_attributes(group: HeartbeatGroup, *, team_name: str) -> dict[str, Any]:
    return {
        "name": group.name,
        "sort_index": group.sort_index,
        "paused": group.paused,
        "team_name": team_name,
        "created_at": isoformat_ms(group.created_at),
        "updated_at": isoformat_ms(group.updated_at),
    }


async def create_group(
    session: AsyncSession, *, team_id: int, data: GroupCreate, now: datetime
) -> HeartbeatGroup:
    values = {
        name: default if getattr(data, name) is None else getattr(data, name)
        for name, default in GROUP_DEFAULTS.items()
    }
    group = HeartbeatGroup(
        team_id=team_id, name=data.name, created_at=now, updated_at=now, **values
    )
    session.add(group)
    await session.flush()
    return group


def groups_of(team_id: int) -> Select[tuple[HeartbeatGroup]]:
    return select(HeartbeatGroup).where(HeartbeatGroup.team_id == team_id)


async def get_group(session: AsyncSession, *, team_id: int, group_id: int) -> HeartbeatGroup:
    return await one_or_404(
        session, groups_of(team_id).where(HeartbeatGroup.id == group_id), GROUP, group_id
    )


def group_heartbeats(*, team_id: int, group_id: int) -> Select[tuple[Heartbeat]]:
    return heartbeats_of(team_id).where(Heartbeat.heartbeat_group_id == group_id)


async def update_group(
    session: AsyncSession,
    *,
    group: HeartbeatGroup,
    data: GroupUpdate,
    sent: Sequence[str],
    now: datetime,
) -> HeartbeatGroup:
    """Apply a validated PATCH; a change of `paused` pauses or resumes the group's heartbeats."""
    for name in ("name", "sort_index"):
        if name in sent:
            setattr(group, name, getattr(data, name))
    if "paused" in sent and data.paused is not None and data.paused != group.paused:
        group.paused = data.paused
        members = await session.scalars(group_heartbeats(team_id=group.team_id, group_id=group.id))
        for heartbeat in members:
            if _set_paused(heartbeat, data.paused, now):
                heartbeat.updated_at = now
    group.updated_at = now
    await session.flush()
    return group


async def delete_group(session: AsyncSession, *, group: HeartbeatGroup, now: datetime) -> None:
    """Delete the group and the status page resources showing it; its heartbeats stay,
    ungrouped."""
    await session.execute(
        update(Heartbeat)
        .where(Heartbeat.team_id == group.team_id, Heartbeat.heartbeat_group_id == group.id)
        .values(heartbeat_group_id=None, updated_at=now)
    )
    await delete_shown(session, group, resource_type="HeartbeatGroup")
