"""Events in columns: what ingestion builds from a body and the stores append in one go.

A batch holds one list per column (ids, times as microseconds, levels, …, each event's
flattened attributes and its JSON as sent), so the hot path makes no object per event and a
store hands whole columns to its engine (an Arrow table for DuckDB, column lists for
ClickHouse). `LogEvent` stays the one-event view (`events()`, `EventBatch.of`).

A batch made by the native MessagePack path (logs/fast_columns.py) carries its text columns
built already, as Arrow (`prebuilt`): its lists of levels … raws and attributes are empty, and
`plain()` gives the list form where one is needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from watchpost.logs.events import LogEvent

if TYPE_CHECKING:
    import pyarrow as pa

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROS_PER_DAY = 86_400_000_000
PREBUILT = ("severity", "service", "body", "raw", "text")
"""The text columns of a prebuilt batch, beside one `a.<path>` column per attribute path."""
ATTRIBUTE_PREFIX = "a."


def to_micros(at: datetime) -> int:
    """An aware time as microseconds since the epoch (exact: no float in between)."""
    delta = at - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def from_micros(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)


@dataclass(slots=True)
class EventBatch:
    """Events as columns, all of the same length, in the order they were received."""

    ids: list[int] = field(default_factory=list)
    source_ids: list[int] = field(default_factory=list)
    team_ids: list[int] = field(default_factory=list)
    micros: list[int] = field(default_factory=list)
    """The event's time (aware UTC), as microseconds since the epoch."""
    levels: list[str] = field(default_factory=list)
    services: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    attributes: list[dict[str, str]] = field(default_factory=list)
    """Every leaf of each event by its dotted path (see LogEvent.attributes)."""
    raws: list[str] = field(default_factory=list)
    """The event as sent, JSON text (LogEvent.raw decoded)."""
    prebuilt: pa.Table | None = None
    """The columns levels … raws and the attributes built already (PREBUILT's names, and an
    `a.<path>` column per attribute path, null where an event has no such leaf); those lists
    are then empty."""

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def of(cls, events: Iterable[LogEvent]) -> EventBatch:
        batch = cls()
        for event in events:
            batch.ids.append(event.id)
            batch.source_ids.append(event.source_id)
            batch.team_ids.append(event.team_id)
            batch.micros.append(to_micros(event.dt.astimezone(UTC)))
            batch.levels.append(event.level)
            batch.services.append(event.service)
            batch.messages.append(event.message)
            batch.attributes.append(dict(event.attributes))
            batch.raws.append(event.raw.decode("utf-8", "replace"))
        return batch

    def paths(self) -> set[str]:
        """Every attribute path some event of the batch has."""
        if self.prebuilt is None:
            return set().union(*self.attributes)
        return {
            name[len(ATTRIBUTE_PREFIX) :]
            for name, column in zip(self.prebuilt.column_names, self.prebuilt.columns, strict=True)
            if name.startswith(ATTRIBUTE_PREFIX) and column.null_count < len(column)
        }

    def plain(self) -> EventBatch:
        """The batch with its columns as lists (itself when they are). Each event's attributes
        are in the order their paths first appear in the batch."""
        table = self.prebuilt
        if table is None:
            return self
        paths = [n for n in table.column_names if n.startswith(ATTRIBUTE_PREFIX)]
        values = [table.column(n).to_pylist() for n in paths]
        keys = [n[len(ATTRIBUTE_PREFIX) :] for n in paths]
        attributes = (
            [
                {key: row[k] for k, key in enumerate(keys) if row[k] is not None}
                for row in zip(*values, strict=True)
            ]
            if paths
            else [{} for _ in self.ids]
        )
        return EventBatch(
            ids=self.ids,
            source_ids=self.source_ids,
            team_ids=self.team_ids,
            micros=self.micros,
            levels=table.column("severity").to_pylist(),
            services=table.column("service").to_pylist(),
            messages=table.column("body").to_pylist(),
            attributes=attributes,
            raws=table.column("raw").to_pylist(),
        )

    @classmethod
    def concat(cls, batches: Sequence[EventBatch]) -> EventBatch:
        if len(batches) == 1:
            return batches[0].plain()
        out = cls()
        for batch in (b.plain() for b in batches):
            out.ids += batch.ids
            out.source_ids += batch.source_ids
            out.team_ids += batch.team_ids
            out.micros += batch.micros
            out.levels += batch.levels
            out.services += batch.services
            out.messages += batch.messages
            out.attributes += batch.attributes
            out.raws += batch.raws
        return out

    def take(self, rows: Sequence[int]) -> EventBatch:
        """The rows at these positions, in that order."""
        if self.prebuilt is not None:
            import pyarrow as pa  # loaded already: fast_columns built the prebuilt columns

            return EventBatch(
                ids=[self.ids[i] for i in rows],
                source_ids=[self.source_ids[i] for i in rows],
                team_ids=[self.team_ids[i] for i in rows],
                micros=[self.micros[i] for i in rows],
                prebuilt=self.prebuilt.take(pa.array(rows, pa.int64())),
            )
        return EventBatch(
            ids=[self.ids[i] for i in rows],
            source_ids=[self.source_ids[i] for i in rows],
            team_ids=[self.team_ids[i] for i in rows],
            micros=[self.micros[i] for i in rows],
            levels=[self.levels[i] for i in rows],
            services=[self.services[i] for i in rows],
            messages=[self.messages[i] for i in rows],
            attributes=[self.attributes[i] for i in rows],
            raws=[self.raws[i] for i in rows],
        )

    def since(self, oldest: datetime) -> EventBatch:
        """The events at `oldest` or later (self when that is all of them)."""
        floor = to_micros(oldest.astimezone(UTC))
        if not self.micros or min(self.micros) >= floor:
            return self
        return self.take([i for i, at in enumerate(self.micros) if at >= floor])

    def by_day(self) -> list[tuple[int, EventBatch]]:
        """(days since the epoch, the batch's events of that UTC day), days ascending."""
        if not self.micros:
            return []
        first = min(self.micros) // MICROS_PER_DAY
        if max(self.micros) // MICROS_PER_DAY == first:
            return [(first, self)]
        rows: dict[int, list[int]] = {}
        for i, at in enumerate(self.micros):
            rows.setdefault(at // MICROS_PER_DAY, []).append(i)
        return [(day, self.take(found)) for day, found in sorted(rows.items())]

    def events(self) -> list[LogEvent]:
        if self.prebuilt is not None:
            return self.plain().events()
        return [
            LogEvent(
                id=self.ids[i],
                source_id=self.source_ids[i],
                team_id=self.team_ids[i],
                dt=from_micros(self.micros[i]),
                level=self.levels[i],
                service=self.services[i],
                message=self.messages[i],
                attributes=self.attributes[i],
                raw=self.raws[i].encode(),
            )
            for i in range(len(self.ids))
        ]
