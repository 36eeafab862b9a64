"""What the console's buttons do to monitors, heartbeats and collector targets: pause,
resume, delete, check now; one object (its page) or many (the overview's bulk actions).

Each goes through the domain's own path, as the API's PATCH and DELETE do: pausing is the
PATCH of `paused` (monitors, heartbeats) or of `enabled` (targets: the API pauses one by
disabling it), parsed and stored by the same functions; deleting is the DELETE's service
call; "check now" makes the row due at once for the engine (monitors.service.check_now).
Every change is an audit entry in the same transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal, cast

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.audit.service import Actor, record
from watchpost.collectors import service as collectors
from watchpost.collectors.models import CollectorTarget
from watchpost.collectors.schemas import parse_target_update
from watchpost.errors import NotFound
from watchpost.heartbeats import service as heartbeats
from watchpost.heartbeats.models import Heartbeat
from watchpost.heartbeats.schemas import parse_heartbeat_update
from watchpost.monitors import service as monitors
from watchpost.monitors.models import Monitor
from watchpost.monitors.schemas import parse_monitor_update
from watchpost.writing import Writing

Kind = Literal["monitor", "heartbeat", "target"]
Item = Monitor | Heartbeat | CollectorTarget
Operation = Literal["pause", "resume", "delete", "check"]


@dataclass(frozen=True)
class KindNames:
    """One kind of object the operations act on: its model and how it is named."""

    model: type[Item]
    path: str
    """Its pages' first path segment (/monitors/3)."""
    subject_type: str
    """The audit log's (and the API's) name of it."""
    singular: str
    """The console's word for one, and for more."""
    plural: str


KIND_NAMES: Final[dict[Kind, KindNames]] = {
    "monitor": KindNames(Monitor, "monitors", "monitor", "monitor", "monitors"),
    "heartbeat": KindNames(Heartbeat, "heartbeats", "heartbeat", "heartbeat", "heartbeats"),
    "target": KindNames(
        CollectorTarget, "targets", "collector_target", "collector target", "collector targets"
    ),
}
MODELS: Final = {kind: names.model for kind, names in KIND_NAMES.items()}
PATHS: Final = {kind: names.path for kind, names in KIND_NAMES.items()}
SUBJECT_TYPES: Final = {kind: names.subject_type for kind, names in KIND_NAMES.items()}
PAST: Final[dict[Operation, str]] = {
    "pause": "paused",
    "resume": "resumed",
    "delete": "deleted",
    "check": "check_requested",
}


def name_of(kind: Kind, item: Item) -> str:
    """How the console names the object: a target by its kind and address."""
    if isinstance(item, Monitor):
        return item.pronounceable_name or item.url
    if isinstance(item, Heartbeat):
        return item.name
    return target_name(item)


def target_name(target: CollectorTarget) -> str:
    address = target.host if target.port is None else f"{target.host}:{target.port}"
    return f"{target.kind} at {address}"


def is_paused(item: Item, now: datetime) -> bool:
    if isinstance(item, CollectorTarget):
        return not item.enabled or (item.paused_until is not None and item.paused_until > now)
    return item.paused


async def load(
    db: AsyncSession, *, team_id: int, kind: Kind, ids: Sequence[int], lock: bool = True
) -> list[Item]:
    """The team's objects of kind with these ids, in one query (locked for the change);
    NotFound when any is missing or another team's: nothing is then changed."""
    model = MODELS[kind]
    wanted = sorted(set(ids))
    if not wanted:
        return []
    query = select(model).where(model.team_id == team_id, model.id.in_(wanted)).order_by(model.id)
    if lock:
        query = query.with_for_update()
    found = cast(list[Item], list((await db.scalars(query)).all()))
    if len(found) != len(wanted):
        missing = sorted(set(wanted) - {item.id for item in found})
        raise NotFound(SUBJECT_TYPES[kind], missing[0])
    return found


async def _pause(write: Writing, item: Item, paused: bool) -> bool:
    """The API's PATCH of this one field, parsed and stored as it parses and stores it."""
    now = write.now
    if isinstance(item, Monitor):
        if item.paused == paused:
            return False
        data, values = parse_monitor_update({"paused": paused}, monitors.monitor_values(item), [])
        await monitors.update_monitor(write, monitor=item, data=data, values=values)
        return True
    if isinstance(item, Heartbeat):
        if item.paused == paused:
            return False
        hb = parse_heartbeat_update(
            {"paused": paused}, heartbeats.heartbeat_values(item), group_problems=[]
        )
        await heartbeats.update_heartbeat(
            write, heartbeat=item, data=hb, sent=list(hb.model_fields_set)
        )
        return True
    if not paused and item.paused_until is not None and item.paused_until > now:
        # Paused for a while (the hosted API's read-only paused_until): resuming ends it.
        item.paused_until = None
        item.updated_at = now
        if item.enabled:
            item.due_now(now)
            return True
    if item.enabled != paused:
        return False
    target = parse_target_update({"enabled": not paused}, collectors.target_values(item))
    await collectors.update_target(
        write.session,
        target=item,
        data=target,
        sent=list(target.model_fields_set),
        box=write.box,
        now=now,
    )
    return True


async def _delete(write: Writing, item: Item) -> None:
    if isinstance(item, Monitor):
        await monitors.delete_monitor(write, item)
    elif isinstance(item, Heartbeat):
        await heartbeats.delete_heartbeat(write, item)
    else:
        await collectors.delete_target(write.session, target=item, now=write.now)


async def _check(db: AsyncSession, item: Item, now: datetime) -> bool:
    if isinstance(item, Monitor):
        return await monitors.check_everywhere_now(db, item, now)
    if isinstance(item, CollectorTarget):
        return collectors.check_target_now(item, now)
    return False  # a heartbeat waits for its pings


async def apply(
    write: Writing, *, kind: Kind, item: Item, operation: Operation, actor: Actor
) -> bool:
    """Do operation to one loaded object, in the writing's transaction, with its audit
    entry; whether it changed anything (no entry when not)."""
    name = name_of(kind, item)
    subject_id = item.id
    if operation == "delete":
        await _delete(write, item)
        changed = True
    elif operation == "check":
        changed = await _check(write.session, item, write.now)
        await write.session.flush()
    else:
        changed = await _pause(write, item, operation == "pause")
    if changed:
        await record(
            write.session,
            team_id=write.team_id,
            actor=actor,
            action=f"{SUBJECT_TYPES[kind]}.{PAST[operation]}",
            now=write.now,
            subject_type=SUBJECT_TYPES[kind],
            subject_id=subject_id,
            subject=name[:255],
        )
    return changed
