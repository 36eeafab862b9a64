"""The logs store interface: what ingestion appends and what queries search.

The query AST lives here too, so the store and the query language agree on it. `open_store`
picks the engine from the settings: ClickHouse when WATCHPOST_LOGS_URL is a clickhouse:// URL,
else the embedded store under the data folder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from watchpost.logs.events import LogEvent, StoredEvent

if TYPE_CHECKING:
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

    async def search(self, search: Search) -> list[StoredEvent]: ...

    async def drop_expired(self, now: datetime, retention_days: Mapping[int, int]) -> int:
        """Drop what is older than each source's retention (source_id -> days)."""
        ...

    async def close(self) -> None: ...


def open_store(settings: Settings) -> LogStore:
    """WATCHPOST_LOGS_URL (clickhouse://…) or the embedded default under the data folder."""
    raise NotImplementedError("the logs store engines are not built yet")
