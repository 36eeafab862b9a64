"""Reading the incidents status pages count: as plain columns, since a page of items may
read tens of thousands of them; for a public page, reused between requests while the
database says they are the same.

Reuse (read_incidents(reuse=True)): each incident carries a change stamp that the database
sets on every insert and update (migration 0031: the writing transaction's id on
PostgreSQL, a counter on SQLite). A request asks the database for the count, the sum of
the ids and the sum of the stamps of the rows the read would return; equal to those of the
rows read before (for the same subjects, window start and metadata choice), the incidents
parsed then are used again. Any committed change moves them: a new or deleted incident, or
one that enters or leaves the window, changes the count and the ids' sum; an update gives
the row a stamp other than its old one (another transaction's), so the sum changes. Sums,
not a maximum: a transaction that took its stamp first may commit last.
"""

from __future__ import annotations

import functools
from collections import OrderedDict, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final
from weakref import WeakKeyDictionary

from sqlalchemy import Engine, Select, bindparam, func, null, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from watchpost.db.session import SQLITE_BEGIN_OPTION
from watchpost.incidents.models import Incident as IncidentRow
from watchpost.status_pages.availability import Incident

INCIDENT_COLUMNS: Final[dict[str, str]] = {
    "monitor": "monitor_id",
    "heartbeat": "heartbeat_id",
    "collector_target": "collector_target_id",
    "incoming_webhook": "incoming_webhook_id",
}
_TOKEN_ATTRS = ("value", "item_id", "name", "email")


async def plain_rows(session: AsyncSession, stmt: Select[Any], params: dict[str, Any]) -> Any:
    """stmt's rows, on the session's connection: the session's own execute wraps every row
    of a plain select in ORM result handling (the callers read what no pending change of
    theirs touches)."""
    connection = await session.connection()
    return await connection.execute(stmt, params)


def _tokens(values: Any) -> tuple[str, ...]:
    """An incident's metadata values as the strings a rule's tokens are matched against."""
    if not isinstance(values, list):
        values = [values]
    tokens: list[str] = []
    for value in values:
        if isinstance(value, dict):
            tokens += [str(value[a]) for a in _TOKEN_ATTRS if value.get(a) is not None]
        elif value is not None:
            tokens.append(str(value))
    return tuple(tokens)


def _incident(started_at: datetime, resolved_at: datetime | None, raw: Any) -> Incident:
    metadata = {str(key): _tokens(values) for key, values in (raw or {}).items()}
    return Incident(started_at, resolved_at, metadata)


def _within(subject_type: str) -> tuple[Any, ...]:
    """The incidents of subjects (bound: ids) within [since, now)."""
    column = getattr(IncidentRow, INCIDENT_COLUMNS[subject_type])
    return (
        column.in_(bindparam("ids", expanding=True)),
        IncidentRow.started_at < bindparam("now"),
        or_(IncidentRow.resolved_at.is_(None), IncidentRow.resolved_at > bindparam("since")),
    )


@functools.cache
def incidents_of(subject_type: str, with_metadata: bool = True) -> Select[Any]:
    """The incidents of subjects (bound: ids) within [since, now), as columns, with their
    ids and change stamps: a page of items may read tens of thousands of incidents. Their
    metadata only when a rule reads it."""
    column = getattr(IncidentRow, INCIDENT_COLUMNS[subject_type])
    metadata = IncidentRow.metadata_ if with_metadata else null()
    return (
        select(
            column,
            IncidentRow.id,
            IncidentRow.change_stamp,
            IncidentRow.started_at,
            IncidentRow.resolved_at,
            metadata,
        )
        .where(*_within(subject_type))
        .order_by(IncidentRow.id)
    )


@functools.cache
def fingerprint_of(subject_type: str) -> Select[Any]:
    """What incidents_of would return, in three numbers: the rows, the sum of their ids and
    the sum of their change stamps."""
    return select(
        func.count(),
        func.coalesce(func.sum(IncidentRow.id), 0),
        func.coalesce(func.sum(IncidentRow.change_stamp), 0),
    ).where(*_within(subject_type))


Fingerprint = tuple[int, int, int]

INCIDENTS_KEPT: Final = 200_000
"""How many incidents the reads kept per database may hold in all (a few hundred bytes
each), the least recently used read dropped first; a read of more is not kept."""


@dataclass(frozen=True)
class _Read:
    fingerprint: Fingerprint
    found: dict[int, list[Incident]]
    """Every incident the read returned (min_length is applied per request: an open
    incident's length grows)."""


@dataclass
class _Kept:
    """The reads kept for one database: (subject type, subjects, window start, metadata or
    not) → the read."""

    reads: OrderedDict[Hashable, _Read] = field(default_factory=OrderedDict)
    incidents: int = 0

    def get(self, key: Hashable) -> _Read | None:
        found = self.reads.get(key)
        if found is not None:
            self.reads.move_to_end(key)
        return found

    def put(self, key: Hashable, read: _Read) -> None:
        older = self.reads.pop(key, None)
        if older is not None:
            self.incidents -= older.fingerprint[0]
        if read.fingerprint[0] > INCIDENTS_KEPT:
            return
        self.reads[key] = read
        self.incidents += read.fingerprint[0]
        while self.incidents > INCIDENTS_KEPT:
            _, dropped = self.reads.popitem(last=False)
            self.incidents -= dropped.fingerprint[0]


_reads: WeakKeyDictionary[Engine, _Kept] = WeakKeyDictionary()
"""Per database (engine): ids are only unique within one."""


def _may_reuse(connection: AsyncConnection) -> bool:
    """Whether reads on this connection may be kept and reused: not in a SQLite transaction
    that writes (the write sessions', begun IMMEDIATE; reads do not write), whose stamps a
    rollback would hand out again (a counter); a PostgreSQL transaction's stamp is never
    handed out again."""
    if connection.dialect.name != "sqlite":
        return True
    sync = connection.sync_connection
    mode = None if sync is None else sync.get_execution_options().get(SQLITE_BEGIN_OPTION)
    return sync is not None and mode in (None, "DEFERRED")


async def read_incidents(
    session: AsyncSession,
    subject_type: str,
    ids: Sequence[int],
    *,
    since: datetime,
    now: datetime,
    with_metadata: bool = True,
    min_length: float = 0,
    reuse: bool = False,
) -> dict[int, list[Incident]]:
    """Each subject's incidents within [since, now) that lasted (or have lasted so far) at
    least min_length seconds (a page's min_incident_length), oldest first. reuse: the
    incidents read for the same subjects, window start and metadata choice before, when the
    database's fingerprint of the rows is the same (see the module's docstring)."""
    if not ids:
        return defaultdict(list)
    params = {"ids": ids, "since": since, "now": now}
    connection = await session.connection()
    kept: _Kept | None = None
    key: Hashable = None
    if reuse and _may_reuse(connection):
        kept = _reads.get(connection.sync_engine)
        if kept is None:
            kept = _reads[connection.sync_engine] = _Kept()
        key = (subject_type, tuple(ids), since, with_metadata)
        earlier = kept.get(key)
        if earlier is not None:
            row = (await connection.execute(fingerprint_of(subject_type), params)).one()
            if (int(row[0]), int(row[1]), int(row[2])) == earlier.fingerprint:
                return _at_least(earlier.found, min_length, now)
    read = await _read(connection, subject_type, params, with_metadata)
    if kept is not None:
        kept.put(key, read)
    return _at_least(read.found, min_length, now)


async def _read(
    connection: AsyncConnection, subject_type: str, params: dict[str, Any], with_metadata: bool
) -> _Read:
    """The incidents, and the fingerprint of the very rows read."""
    found: dict[int, list[Incident]] = defaultdict(list)
    count = id_sum = stamp_sum = 0
    rows = await connection.execute(incidents_of(subject_type, with_metadata), params)
    for subject_id, ident, stamp, started_at, resolved_at, metadata in rows:
        count += 1
        id_sum += ident
        stamp_sum += stamp
        if with_metadata:
            found[subject_id].append(_incident(started_at, resolved_at, metadata))
        else:
            found[subject_id].append(Incident(started_at, resolved_at, _NO_METADATA))
    return _Read((count, id_sum, stamp_sum), found)


def _at_least(
    found: dict[int, list[Incident]], min_length: float, now: datetime
) -> dict[int, list[Incident]]:
    """A copy of found (the caller's to change), without the incidents shorter than
    min_length seconds."""
    if not min_length:
        return defaultdict(list, {subject_id: list(got) for subject_id, got in found.items()})
    kept: dict[int, list[Incident]] = defaultdict(list)
    for subject_id, got in found.items():
        for incident in got:
            if (min(incident.end or now, now) - incident.start).total_seconds() >= min_length:
                kept[subject_id].append(incident)
    return kept


_NO_METADATA: Final[dict[str, tuple[str, ...]]] = {}
