"""What the log explorer reads from its URL (the URL holds the whole search, so a search can
be shared): `q` (the query, logs/query_language.py), `source` (one source id, or all the
team's), `range` (a preset: 15m, 1h, 24h, 7d, or custom with `from` and `to`, UTC), and for
"Load older" `cursor` (the query API's own, logsearch/query_params.py) with the range pinned
in `from`/`to`. Errors are collected by field, for the page to show beside each."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Final
from urllib.parse import urlencode

from watchpost.errors import InvalidRequest
from watchpost.logs.query_language import flatten, parse, unparse
from watchpost.logs.store import Field, Term
from watchpost.logsearch import query_params as params

PRESETS: Final[dict[str, tuple[str, timedelta]]] = {
    "15m": ("Last 15 minutes", timedelta(minutes=15)),
    "1h": ("Last hour", timedelta(hours=1)),
    "24h": ("Last 24 hours", timedelta(hours=24)),
    "7d": ("Last 7 days", timedelta(days=7)),
}
DEFAULT_RANGE: Final = "1h"
CUSTOM: Final = "custom"
LOCAL_FORMAT: Final = "%Y-%m-%dT%H:%M"
"""What <input type="datetime-local"> sends (read as UTC)."""


@dataclass
class Explore:
    query: str = ""
    source: str = ""
    range: str = DEFAULT_RANGE
    raw_from: str = ""
    raw_to: str = ""
    cursor: str = ""
    terms: list[Term] = field(default_factory=list)
    since: datetime | None = None
    until: datetime | None = None
    errors: dict[str, str] = field(default_factory=dict)

    def link(self, **changed: str) -> str:
        """This search's URL with some parameters changed ("" drops one)."""
        values = {
            "q": self.query,
            "source": self.source,
            "range": self.range,
            "from": self.raw_from if self.range == CUSTOM else "",
            "to": self.raw_to if self.range == CUSTOM else "",
        }
        values.update(changed)
        kept = [(key, value) for key, value in values.items() if value]
        return "/logs" + (f"?{urlencode(kept)}" if kept else "")

    def older(self, cursor: str) -> str:
        """The next page: the same search, its range pinned, and the cursor."""
        assert self.since is not None and self.until is not None
        return self.link(
            range=CUSTOM,
            **{"from": local(self.since, seconds=True), "to": local(self.until, seconds=True)},
            cursor=cursor,
        )

    def with_term(self, path: str, value: str) -> str:
        """The URL adding `path:value` to the query (click to filter)."""
        term = Field(path, value)
        terms = [t for t in self.terms if t != term]
        return self.link(q=unparse([*terms, term]))

    def without_term(self, index: int) -> str:
        return self.link(q=unparse([t for i, t in enumerate(self.terms) if i != index]))


def local(at: datetime, *, seconds: bool = False) -> str:
    """A time as the datetime-local input shows it (UTC)."""
    return at.astimezone(UTC).strftime(LOCAL_FORMAT + (":%S" if seconds else ""))


def _time(raw: str, name: str, errors: dict[str, str]) -> datetime | None:
    if not raw.strip():
        errors[name] = f"Enter the {'start' if name == 'from' else 'end'} of the range"
        return None
    try:
        return params.parse_time(raw, name)
    except InvalidRequest:
        errors[name] = "Enter a time like 2026-07-19T13:30 (UTC)"
        return None


def read(query: dict[str, str], now: datetime) -> Explore:
    """The search the URL names, with its problems by field (q, source, from, to)."""
    found = Explore(
        query=query.get("q", "")[: 4 * 2000],
        source=query.get("source", "").strip()[:40],
        range=query.get("range", "") or DEFAULT_RANGE,
        raw_from=query.get("from", "")[:40],
        raw_to=query.get("to", "")[:40],
        cursor=query.get("cursor", "")[:600],
    )
    try:
        found.terms = parse(found.query)
    except ValueError as error:
        found.errors["q"] = f"The query {error}"
    if found.range in PRESETS:
        found.until = now.replace(microsecond=0) + timedelta(seconds=1)  # whole seconds: a
        # pinned range (Load older) names exactly the same times in its URL
        found.since = now - PRESETS[found.range][1]
    else:
        found.range = CUSTOM
        found.since = _time(found.raw_from, "from", found.errors)
        found.until = _time(found.raw_to, "to", found.errors)
        if found.since and found.until and found.since >= found.until:
            found.errors["to"] = "The end must be after the start"
    return found


# ------------------------------------------------------------------------------ events


@dataclass(frozen=True)
class Shown:
    """One result row as the page shows it."""

    id: int
    dt: datetime
    level: str
    message: str
    json: str
    fields: list[tuple[str, str]]


LEVEL_KEYS: Final = ("level", "severity_text", "severity", "log.level", "levelname")
MESSAGE_KEYS: Final = ("message", "msg", "body", "log", "text")
MAX_FILTER_LINKS: Final = 60
"""Field values offered as click-to-filter links per event."""
MAX_VALUE: Final = 200
"""Characters of a value a link filters on; longer values are not offered."""


def shown(event_id: int, dt: datetime, event: object, pretty: str) -> Shown:
    leaves = flatten(event)
    level = next((leaves[k] for k in LEVEL_KEYS if leaves.get(k)), "")
    message = next((leaves[k] for k in MESSAGE_KEYS if leaves.get(k)), "")
    if not message:
        message = pretty[:300]
    fields = [
        (path, value)
        for path, value in sorted(leaves.items())
        if path not in ("dt", "source_id") and 0 < len(value) <= MAX_VALUE and _filterable(path)
    ][:MAX_FILTER_LINKS]
    return Shown(event_id, dt, level[:20], message[:2000], pretty, fields)


def _filterable(path: str) -> bool:
    """A path the query language can name (field:value)."""
    try:
        terms = parse(f"{path}:x")
    except ValueError:
        return False
    return len(terms) == 1 and isinstance(terms[0], Field) and terms[0].path == path
