"""What both log stores select and what the rows become.

The embedded store (DuckDB) and ClickHouse select the same columns in the same order, the
time as microseconds since the epoch (each engine has its own function for it), and turn the
rows into events and metric points here, whatever types their driver hands back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from watchpost.logs.batch import from_micros
from watchpost.logs.events import MetricPoint, StoredEvent

_MICROS: Final = {"duckdb": "epoch_us", "clickhouse": "toUnixTimestamp64Micro"}
"""Each engine's function from a time column to microseconds since the epoch."""


def event_columns(dialect: str) -> str:
    """The columns of a found event (stored_event reads them): id, source, time, raw."""
    return f"id, source_id, {_MICROS[dialect]}(dt), raw"


def metric_columns(dialect: str) -> str:
    """The columns of a found metric point (metric_point reads them)."""
    return f"source_id, team_id, {_MICROS[dialect]}(dt), name, value, tags"


def stored_event(row: Sequence[Any]) -> StoredEvent:
    """A row of event_columns as the event found."""
    raw = row[3]
    return StoredEvent(
        id=int(row[0]),
        source_id=int(row[1]),
        dt=from_micros(row[2]),
        raw=raw if isinstance(raw, bytes) else str(raw).encode(),
    )


def metric_point(row: Sequence[Any]) -> MetricPoint:
    """A row of metric_columns as the metric point found."""
    return MetricPoint(
        source_id=int(row[0]),
        team_id=int(row[1]),
        dt=from_micros(row[2]),
        name=str(row[3]),
        value=float(row[4]),
        tags=dict(row[5]),
    )
