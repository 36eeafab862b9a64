"""The logs store interface: what ingestion appends and what queries search.

The query AST lives here too, so the store and the query language agree on it. `open_store`
picks the engine from the settings: ClickHouse when WATCHPOST_LOGS_URL is a clickhouse:// URL,
else the embedded store under the data folder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from watchpost.logs.events import LogEvent, MetricPoint, StoredEvent

if TYPE_CHECKING:
    from pathlib import Path

    from watchpost.logs.batch import EventBatch
    from watchpost.logs.counting import SliceCounts
    from watchpost.settings import Settings

MAX_LIMIT = 1000
"""The most events one search returns; a larger limit is cut to this."""


@dataclass(frozen=True, slots=True)
class Word:
    """A word or a "quoted phrase": case-insensitive substring of message or any attribute value."""

    text: str
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Field:
    """field:value on a dotted path; case-insensitive equality of the value's text.

    The value may end in * for a prefix match.
    """

    path: str
    value: str
    negated: bool = False


Term = Word | Field


@dataclass(frozen=True, slots=True)
class Search:
    source_ids: Sequence[int]
    terms: Sequence[Term] = ()
    """All must hold."""
    since: datetime | None = None
    """dt >= since."""
    until: datetime | None = None
    """dt < until."""
    newest_first: bool = True
    limit: int = 100
    before: tuple[datetime, int] | None = None
    """Cursor: (dt, id); only events strictly after it in the order."""
    after_id: int | None = None
    """Tail: only events with id > after_id, ascending by id."""


class LogStore(Protocol):
    async def append(self, events: Sequence[LogEvent]) -> None:
        """Store the events; durable when it returns (a kill -9 after it loses nothing)."""
        ...

    async def append_batch(self, batch: EventBatch) -> None:
        """append, for events in columns (what ingestion builds)."""
        ...

    async def search(self, search: Search) -> list[StoredEvent]:
        """The events of the search, in its order, at most min(limit, MAX_LIMIT)."""
        ...

    async def count_by_slice(
        self, search: Search, start: datetime, width: timedelta
    ) -> SliceCounts:
        """How many of the search's events fall in each slice of `width` from `start`, counted
        by the engine (logs/counting.py SliceCounts); its limit, order and cursor are ignored."""
        ...

    async def drop_expired(self, now: datetime, retention_days: Mapping[int, int]) -> int:
        """Drop the day partitions (or a source's rows in them) past each source's retention
        (source_id -> days; a source not in the mapping gets its longest); the events dropped."""
        ...

    async def append_metrics(self, points: Sequence[MetricPoint]) -> None:
        """Store metric samples; durable when it returns."""
        ...

    async def search_metrics(self, search: MetricSearch) -> list[MetricPoint]:
        """Samples of the sources, oldest first (at most MAX_LIMIT)."""
        ...

    async def drop_expired_metrics(self, now: datetime, retention_days: Mapping[int, int]) -> int:
        """drop_expired for metrics (source_id -> metrics_retention days)."""
        ...

    async def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class MetricSearch:
    source_ids: Sequence[int]
    name: str | None = None
    """Only samples of this metric; None: every metric."""
    since: datetime | None = None
    until: datetime | None = None
    limit: int = 1000


DEFAULT_MEMORY_LIMIT_MB = 1024


def capped(limit: int) -> int:
    """A search's limit within 0..MAX_LIMIT."""
    return max(0, min(limit, MAX_LIMIT))


def memory_limit_mb(setting: int = 0) -> int:
    """WATCHPOST_LOGS_MEMORY_LIMIT_MB, or DEFAULT_MEMORY_LIMIT_MB: DuckDB's buffer pool keeps the
    blocks it wrote and read within it, so the process's memory grows to about this much more
    than ingestion holds, and stays there. At 10 million events, 1 GiB searches as fast as
    6 GiB, and under full ingest it keeps the server's memory flat (docs/benchmarks.md, "Logs
    ingestion" and "Logs queries through the API")."""
    return setting if setting > 0 else DEFAULT_MEMORY_LIMIT_MB


def _embedded_folder(settings: Settings) -> Path:
    return settings.data_dir / "logs"


def open_store(settings: Settings) -> LogStore:
    """WATCHPOST_LOGS_URL (clickhouse://…) or the embedded default under the data folder.

    Nothing is opened yet: each engine connects on first use, so building a context costs no I/O.
    The engine's module (and its libraries: DuckDB, Arrow or clickhouse-connect) loads here.
    """
    url = settings.logs_url
    if url:
        from watchpost.logs.clickhouse import ClickHouseStore

        return ClickHouseStore.from_url(url)
    from watchpost.logs.embedded import EmbeddedStore

    return EmbeddedStore(_embedded_folder(settings), memory_limit_mb(settings.logs_memory_limit_mb))


def may_hold_events(settings: Settings) -> bool:
    """Whether the settings' store may hold events this process did not append: a ClickHouse
    store always (other processes write to it), the embedded one once its folder exists (made
    at its first connection)."""
    return bool(settings.logs_url) or _embedded_folder(settings).exists()
