"""What monitors do: create, read, change, pause, delete. No HTTP in here."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any, Final

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import SecretBox
from watchpost.db import queries
from watchpost.db.deletions import delete_named
from watchpost.db.queries import team_object
from watchpost.delivery import outbox
from watchpost.incidents import service as incidents
from watchpost.monitors import placement
from watchpost.monitors.lists import MONITOR, monitor_resource, port_text
from watchpost.monitors.models import Monitor, MonitorGroup
from watchpost.monitors.schemas import (
    VALUE_FIELDS,
    MonitorCreate,
    MonitorUpdate,
    parse_monitor_create,
    parse_monitor_update,
)
from watchpost.monitors.status_machine import apply, resume, state_of
from watchpost.monitors.types import TYPE_FIELDS, port_numbers
from watchpost.notification_fields import policy_ref_id
from watchpost.policies.models import Policy
from watchpost.problems import team_name_problems
from watchpost.validation import reference_id
from watchpost.writing import Writing

# A change to any of these means the monitor must be checked anew, right away.
CHECK_FIELDS: Final[frozenset[str]] = frozenset(
    {
        "monitor_type",
        "url",
        *TYPE_FIELDS,
        "check_frequency",
        "request_timeout",
        "domain_expiration",
        "regions",
        "locations",
    }
)


# ------------------------------------------------------------------------------ monitors


def monitor_values(monitor: Monitor) -> dict[str, Any]:
    """The monitor as request values, for validating a PATCH against it.

    The write-only auth_password only says whether it is set.
    """
    values: dict[str, Any] = {name: getattr(monitor, name) for name in VALUE_FIELDS}
    values["port"] = port_text(monitor.port, monitor.port_list)
    values["request_headers"] = list(monitor.request_headers or [])
    values["auth_password"] = "set" if monitor.auth_password_encrypted is not None else None
    values["last_request_header_id"] = monitor.last_request_header_id
    return values


async def group_problems(write: Writing, body: dict[str, Any]) -> list[tuple[str | None, str]]:
    """A monitor_group_id in body must name a monitor group of the team, a policy_id and an
    expiration_policy_id one of its escalation policies, a team_name the token's team."""
    session, team_id = write.session, write.team_id
    # None: null, absent, or a type or range error pydantic reports
    group_id = reference_id(body.get("monitor_group_id"))
    problems = await queries.group_problems(
        session, MonitorGroup, "monitor_group_id", team_id=team_id, group_id=group_id
    )
    problems += await queries.group_problems(
        session, Policy, "policy_id", team_id=team_id, group_id=policy_ref_id(body.get("policy_id"))
    )
    problems += await queries.group_problems(
        session,
        Policy,
        "expiration_policy_id",
        team_id=team_id,
        group_id=reference_id(body.get("expiration_policy_id")),
    )
    problems += await placement.location_problems(
        session, team_id=team_id, names=body.get("locations")
    )
    return problems + team_name_problems(body.get("team_name"), write.team_name)


def port_columns(value: str | None) -> tuple[int | None, str | None]:
    """A port value as its columns: the first port, and the text when it lists several."""
    ports = port_numbers(value) if value is not None else None
    if not ports:
        return None, None
    return ports[0], value if len(ports) > 1 else None


def _store(monitor: Monitor, name: str, value: Any) -> bool:
    """Set one request value on the monitor; whether it changed."""
    if name == "port":
        port, port_list = port_columns(value)
        if (monitor.port, monitor.port_list) == (port, port_list):
            return False
        monitor.port, monitor.port_list = port, port_list
        return True
    if getattr(monitor, name) == value:
        return False
    setattr(monitor, name, value)
    return True


def set_paused(monitor: Monitor, paused: bool, now: datetime) -> None:
    """Pause or resume the monitor as of now."""
    monitor.paused = paused
    if paused:
        monitor.status = "paused"
        monitor.paused_at = now
        monitor.unschedule()
    else:
        # The machine restarts what was in progress; an open incident stays open.
        apply(monitor, resume(state_of(monitor)))
        monitor.status = "pending"
        monitor.paused_at = None
        monitor.schedule_now(now)


def check_now(monitor: Monitor, now: datetime) -> bool:
    """Make the monitor due at once, for the engine's next claim (no second scheduler);
    False while paused (never checked then)."""
    if monitor.paused:
        return False
    monitor.due_now(now)
    return True


async def check_everywhere_now(session: AsyncSession, monitor: Monitor, now: datetime) -> bool:
    """check_now, at every location that checks the monitor (a check running there keeps
    its lease and its result)."""
    if not check_now(monitor, now):
        return False
    await placement.due_now(session, monitor_id=monitor.id, now=now)
    return True


async def announce(session: AsyncSession, monitor: Monitor, event: str, at: datetime) -> None:
    """Put the monitor's `event` (created, updated, paused, unpaused, deleted) in the delivery
    outbox, with the monitor as the API shows it now."""
    data = partial(monitor_resource, monitor)
    await outbox.record(
        session,
        team_id=monitor.team_id,
        trigger_type="monitor_change",
        event=event,
        data=data,
        at=at,
    )


async def announce_pause(session: AsyncSession, monitor: Monitor, at: datetime) -> None:
    """Tell receivers the monitor was paused or unpaused (by its group)."""
    await announce(session, monitor, "paused" if monitor.paused else "unpaused", at)


async def create_monitor(
    session: AsyncSession,
    *,
    team_id: int,
    data: MonitorCreate,
    values: dict[str, Any],
    box: SecretBox,
    now: datetime,
) -> Monitor:
    """A new monitor, `pending` and due for a check now (or `paused`)."""
    monitor = Monitor(team_id=team_id, created_at=now, updated_at=now, last_checked_at=None)
    for name, value in values.items():
        _store(monitor, name, value)
    monitor.auth_password_encrypted = (
        box.encrypt(data.auth_password) if data.auth_password is not None else None
    )
    set_paused(monitor, bool(values["paused"]), now)
    session.add(monitor)
    await session.flush()
    await placement.place(session, monitor, now=now, recheck=False)
    await announce(session, monitor, "created", now)
    return monitor


async def get_monitor(session: AsyncSession, *, team_id: int, monitor_id: int) -> Monitor:
    return await team_object(session, Monitor, MONITOR, team_id=team_id, object_id=monitor_id)


async def update_monitor(
    write: Writing, *, monitor: Monitor, data: MonitorUpdate, values: dict[str, Any]
) -> Monitor:
    """Store a validated PATCH. Changed check settings make the monitor due now."""
    session, now = write.session, write.now
    recheck = changed = False
    for name, value in values.items():
        if name == "paused":
            continue
        if _store(monitor, name, value):
            changed = True
            recheck = recheck or name in CHECK_FIELDS
    if "auth_password" in data.model_fields_set:
        monitor.auth_password_encrypted = (
            write.box.encrypt(data.auth_password) if data.auth_password is not None else None
        )
        recheck = changed = True
    pausing = values["paused"] != monitor.paused
    if pausing:
        set_paused(monitor, bool(values["paused"]), now)
    elif recheck and not monitor.paused:
        monitor.schedule_now(now)  # and any check still running with the old settings is void
    monitor.updated_at = now
    await session.flush()
    if recheck or pausing:
        await placement.place(session, monitor, now=now, recheck=True)
    if changed:
        await announce(session, monitor, "updated", now)
    if pausing:
        await announce_pause(session, monitor, now)
    return monitor


async def create_from_body(write: Writing, body: dict[str, Any]) -> Monitor:
    """A monitor from a request body, every rule checked (an InvalidRequest naming every
    problem): the one path the API and the console both create monitors by."""
    data, values = parse_monitor_create(body, await group_problems(write, body))
    return await create_monitor(
        write.session, team_id=write.team_id, data=data, values=values, box=write.box, now=write.now
    )


async def update_from_body(write: Writing, monitor: Monitor, body: dict[str, Any]) -> Monitor:
    """A PATCH body checked against the monitor as it will be, then stored (API and console)."""
    extra = await group_problems(write, body)
    data, values = parse_monitor_update(body, monitor_values(monitor), extra)
    return await update_monitor(write, monitor=monitor, data=data, values=values)


async def delete_monitor(write: Writing, monitor: Monitor) -> None:
    """Delete the monitor, its check history and the status page resources showing it; its
    incidents stay, as history, and an open one is resolved (no check can resolve it now)."""
    session, now = write.session, write.now
    await announce(session, monitor, "deleted", now)
    await incidents.forget_checked(session, subject_type="monitor", subject_id=monitor.id, now=now)
    await delete_named(session, monitor, item_type="Monitor")
