"""What metadata records do: set a key of an owner (create, replace, merge or remove its
values), read, change, delete. No HTTP here.

An owner is a monitor, heartbeat or incident of the caller's team (a 422 otherwise); one
record per (owner, key). The records of an incident ARE its `metadata` dict: every write of
one sets (or removes) that key of the dict, in the same transaction, so status page metadata
rules and escalation policies' metadata branching see them (incidents.py: what is copied
when an incident opens).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from sqlalchemy import JSON, TableClause, column, func, select, table, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.errors import InvalidRequest, Problem
from watchpost.listing import Page, PageRequest, Resource, paginate, resource
from watchpost.metadata.models import MetadataRecord
from watchpost.metadata.schemas import MetadataUpdate, MetadataWrite
from watchpost.metadata.values import MAX_VALUES, incident_text, resolved, same_value, shown
from watchpost.plain_objects import TeamObjects
from watchpost.problems import team_name_problems
from watchpost.teams.service import Principal
from watchpost.validation import parse_id

TYPE: Final = "metadata"
get: Final = TeamObjects(MetadataRecord, TYPE).get
OWNERS: Final[dict[str, TableClause]] = {
    owner_type: table(name, column("id"), column("team_id"))
    for owner_type, name in (
        ("Monitor", "monitors"),
        ("Heartbeat", "heartbeats"),
        ("Incident", "incidents"),
        ("WebhookIntegration", "outgoing_webhooks"),
        ("EmailIntegration", "email_integrations"),
        ("IncomingWebhook", "incoming_webhooks"),
    )
}
"""The owner types Watchpost has, and their tables (named, not imported: the incidents
package imports this one, to copy records onto incidents as they open)."""
_INCIDENTS: Final = table("incidents", column("id"), column("team_id"), column("metadata", JSON))
MAX_KEYS: Final = 50
"""Keys one owner may hold (as many as an incident's `metadata` takes)."""
HOSTED_ONLY: Final = ("CallRouting",)
"""Owner types of the hosted API that name objects Watchpost does not have."""


def render(record: MetadataRecord, team_name: str) -> Resource:
    return resource(
        TYPE,
        record.id,
        {
            "key": record.key,
            "values": [shown(value) for value in record.values],
            "team_name": team_name,
            "owner_id": str(record.owner_id),
            "owner_type": record.owner_type,
            "created_at": isoformat_ms(record.created_at),
            "updated_at": isoformat_ms(record.updated_at),
        },
    )


def owner_type_problems(field: str, owner_type: str) -> list[Problem]:
    if owner_type in OWNERS:
        return []
    if owner_type in HOSTED_ONLY:
        return [(field, f"{field}: this server has no {owner_type} objects to own metadata")]
    return [(field, f"{field} must be one of {', '.join(OWNERS)}")]


async def _owner(
    session: AsyncSession, caller: Principal, owner_type: str, raw_id: int | str
) -> tuple[int, list[Problem]]:
    """The owner's id, once it is known to be an object of the caller's team."""
    problems = owner_type_problems("owner_type", owner_type)
    owner_id = parse_id(str(raw_id).strip())
    if owner_id is None:
        return 0, [*problems, ("owner_id", "owner_id must be an id")]
    if problems:
        return owner_id, problems
    owners = OWNERS[owner_type]
    found = await session.scalar(
        select(owners.c.id).where(owners.c.team_id == caller.team_id, owners.c.id == owner_id)
    )
    if found is None:
        return owner_id, [("owner_id", f"owner_id names no {owner_type} of your team")]
    return owner_id, []


async def _find(
    session: AsyncSession, team_id: int, owner_type: str, owner_id: int, key: str
) -> MetadataRecord | None:
    found: MetadataRecord | None = await session.scalar(
        select(MetadataRecord).where(
            MetadataRecord.team_id == team_id,
            MetadataRecord.owner_type == owner_type,
            MetadataRecord.owner_id == owner_id,
            MetadataRecord.key == key,
        )
    )
    return found


async def _check_room(db: AsyncSession, team_id: int, owner_type: str, owner_id: int) -> None:
    """An owner holds at most MAX_KEYS keys."""
    held = await db.scalar(
        select(func.count())
        .select_from(MetadataRecord)
        .where(
            MetadataRecord.team_id == team_id,
            MetadataRecord.owner_type == owner_type,
            MetadataRecord.owner_id == owner_id,
        )
    )
    if (held or 0) >= MAX_KEYS:
        raise InvalidRequest([("key", f"key: an owner holds at most {MAX_KEYS} keys")])


def _merged(kept: list[dict[str, Any]], sent: list[dict[str, Any]], mode: str | None) -> Any:
    if mode != "merge":
        return sent
    values = list(kept)
    for value in sent:
        if not any(same_value(value, held) for held in values):
            values.append(value)
    if len({value["type"] for value in values}) > 1:
        raise InvalidRequest([("values", "values: all values of one key must have the same type")])
    if len(values) > MAX_VALUES:
        raise InvalidRequest([("values", f"values: a key holds at most {MAX_VALUES} values")])
    return values


async def put(
    db: AsyncSession, caller: Principal, data: MetadataWrite, now: datetime
) -> MetadataRecord | None:
    """Set the key of the owner to the values (a new record, or the one kept); no values
    remove the key. The record, or None when the key is gone."""
    problems = team_name_problems(data.team_name, caller.team_name)
    owner_id, owner_problems = await _owner(db, caller, data.owner_type, data.owner_id)
    values, value_problems = await resolved(db, caller, "values", data.values or [])
    problems += owner_problems + value_problems
    if problems:
        raise InvalidRequest(problems)
    record = await _find(db, caller.team_id, data.owner_type, owner_id, data.key)
    if not values and data.mode != "merge":
        if record is not None:
            await remove(db, record)
        return None
    if record is None:
        await _check_room(db, caller.team_id, data.owner_type, owner_id)
        record = MetadataRecord(
            team_id=caller.team_id,
            owner_type=data.owner_type,
            owner_id=owner_id,
            key=data.key,
            values=_merged([], values, None),
            created_at=now,
            updated_at=now,
        )
        db.add(record)
    else:
        record.values = _merged(record.values, values, data.mode)
        record.updated_at = now
    await db.flush()
    await _sync_incident(db, record.owner_type, record.owner_id, {record.key: record.values})
    return record


async def change(
    db: AsyncSession, caller: Principal, record: MetadataRecord, data: MetadataUpdate, now: datetime
) -> MetadataRecord:
    """The sent key and values change (values replace, or merge with `mode: merge`); an
    owner sent must be the record's."""
    problems = team_name_problems(data.team_name, caller.team_name)
    if data.owner_type is not None and data.owner_type != record.owner_type:
        problems.append(("owner_type", "owner_type cannot change"))
    if data.owner_id is not None and parse_id(str(data.owner_id).strip()) != record.owner_id:
        problems.append(("owner_id", "owner_id cannot change"))
    values: list[dict[str, Any]] | None = None
    if data.values is not None:
        values, value_problems = await resolved(db, caller, "values", data.values)
        problems += value_problems
        if not value_problems and not values and data.mode != "merge":
            problems.append(("values", "values: at least one value (DELETE removes the key)"))
    if (
        data.key is not None
        and data.key != record.key
        and await _find(db, record.team_id, record.owner_type, record.owner_id, data.key)
    ):
        problems.append(("key", "key: the owner has a record with this key already"))
    if problems:
        raise InvalidRequest(problems)
    old_key = record.key
    if data.key is not None:
        record.key = data.key
    if values is not None:
        record.values = _merged(record.values, values, data.mode)
    record.updated_at = now
    await db.flush()
    changed: dict[str, list[dict[str, Any]] | None] = {record.key: record.values}
    if old_key != record.key:
        changed[old_key] = None
    await _sync_incident(db, record.owner_type, record.owner_id, changed)
    return record


async def remove(db: AsyncSession, record: MetadataRecord) -> None:
    await db.delete(record)
    await db.flush()
    await _sync_incident(db, record.owner_type, record.owner_id, {record.key: None})


async def page(
    db: AsyncSession,
    caller: Principal,
    paging: PageRequest,
    *,
    owner_type: str | None,
    owner_id: int | None,
) -> Page[MetadataRecord]:
    stmt = select(MetadataRecord).where(MetadataRecord.team_id == caller.team_id)
    if owner_type is not None:
        stmt = stmt.where(MetadataRecord.owner_type == owner_type)
    if owner_id is not None:
        stmt = stmt.where(MetadataRecord.owner_id == owner_id)
    return await paginate(db, stmt, paging, order_by=MetadataRecord.id)


async def _sync_incident(
    db: AsyncSession,
    owner_type: str,
    owner_id: int,
    changed: dict[str, list[dict[str, Any]] | None],
) -> None:
    """An incident's records written: its `metadata` dict takes their keys (None: removed)."""
    if owner_type != "Incident":
        return
    where = _INCIDENTS.c.id == owner_id
    found = (await db.execute(select(_INCIDENTS.c.metadata).where(where).with_for_update())).first()
    if found is None:
        return
    metadata = dict(found[0] or {})
    for key, values in changed.items():
        if values is None:
            metadata.pop(key, None)
        else:
            metadata[key] = [incident_text(value) for value in values]
    await db.execute(update(_INCIDENTS).where(where).values(metadata=metadata))
