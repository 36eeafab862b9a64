"""Reading the incidents status pages count: as plain columns, since a page of items may
read tens of thousands of them."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from sqlalchemy import Select, bindparam, null, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

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


@functools.cache
def incidents_of(subject_type: str, with_metadata: bool = True) -> Select[Any]:
    """The incidents of subjects (bound: ids) within [since, now), as columns: a page of
    items may read tens of thousands of incidents. Their metadata only when a rule reads it."""
    column = getattr(IncidentRow, INCIDENT_COLUMNS[subject_type])
    metadata = IncidentRow.metadata_ if with_metadata else null()
    return (
        select(column, IncidentRow.started_at, IncidentRow.resolved_at, metadata)
        .where(
            column.in_(bindparam("ids", expanding=True)),
            IncidentRow.started_at < bindparam("now"),
            or_(IncidentRow.resolved_at.is_(None), IncidentRow.resolved_at > bindparam("since")),
        )
        .order_by(IncidentRow.id)
    )


async def read_incidents(
    session: AsyncSession,
    subject_type: str,
    ids: Sequence[int],
    *,
    since: datetime,
    now: datetime,
    with_metadata: bool = True,
    min_length: float = 0,
) -> dict[int, list[Incident]]:
    """Each subject's incidents within [since, now) that lasted (or have lasted so far) at
    least min_length seconds (a page's min_incident_length), oldest first."""
    found: dict[int, list[Incident]] = defaultdict(list)
    if not ids:
        return found
    params = {"ids": ids, "since": since, "now": now}
    rows = await plain_rows(session, incidents_of(subject_type, with_metadata), params)
    for subject_id, started_at, resolved_at, metadata in rows:
        if min_length and (min(resolved_at or now, now) - started_at).total_seconds() < min_length:
            continue
        if with_metadata:
            found[subject_id].append(_incident(started_at, resolved_at, metadata))
        else:
            found[subject_id].append(Incident(started_at, resolved_at, _NO_METADATA))
    return found


_NO_METADATA: Final[dict[str, tuple[str, ...]]] = {}
