"""What the logs query and tail endpoints read from a request: the team's sources, the query,
the time range, the page size and order, the cursor; and how a found event is shown."""

from __future__ import annotations

import binascii
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import orjson
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost import times
from watchpost.crypto import SecretBox
from watchpost.errors import InvalidRequest, NotFound
from watchpost.logs.events import StoredEvent
from watchpost.logs.query_language import QuerySyntaxError, parse
from watchpost.logs.store import Term
from watchpost.sources.models import Source
from watchpost.validation import ascii_int, parse_id

DEFAULT_BATCH: Final = 100
MAX_BATCH: Final = 1000
DEFAULT_RANGE: Final = timedelta(minutes=30)
"""The hosted API's window when `from` or `to` is missing."""
MAX_SOURCES: Final = 100
"""Sources one request may name (or, unnamed, that a team's request covers)."""
DT_FORMAT: Final = "%Y-%m-%d %H:%M:%S.%f"
"""How rows show `dt` (UTC), as the hosted API does."""

_CURSOR_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class TeamSource:
    id: int
    live_tail_pattern: str


async def team_sources(
    session: AsyncSession, team_id: int, raw_ids: str | None
) -> dict[int, TeamSource]:
    """The sources named by `source_ids` (comma-separated), all of the team's when absent.

    Another team's source answers what a missing one does (404), as every object does."""
    columns = select(Source.id, Source.live_tail_pattern).where(Source.team_id == team_id)
    if raw_ids is None or not raw_ids.strip():
        rows = await session.execute(columns.order_by(Source.id).limit(MAX_SOURCES))
        return {row.id: TeamSource(row.id, row.live_tail_pattern) for row in rows}
    parts = [part.strip() for part in raw_ids.split(",") if part.strip()]
    if len(parts) > MAX_SOURCES:
        raise InvalidRequest.field("source_ids", f"names more than {MAX_SOURCES} sources")
    ids: list[int] = []
    for part in parts:
        value = parse_id(part)
        if value is None:
            raise InvalidRequest.field("source_ids", "must be a comma-separated list of source ids")
        ids.append(value)
    rows = await session.execute(columns.where(Source.id.in_(ids)))
    found = {row.id: TeamSource(row.id, row.live_tail_pattern) for row in rows}
    for value in ids:
        if value not in found:
            raise NotFound("source", value)
    return {value: found[value] for value in dict.fromkeys(ids)}


def query_terms(raw: str | None) -> list[Term]:
    try:
        return parse(raw or "")
    except QuerySyntaxError as error:
        raise InvalidRequest.field("query", str(error)) from error


def parse_time(raw: str, field: str) -> datetime:
    """ISO 8601 (`2022-07-19T13:32:56+0000`, `2022-07-19 13:32:56 UTC`, a date); UTC if no
    offset is given; within the years 1970 and 2200 (every engine holds them; a range is
    never past them)."""
    try:
        return times.read_time(raw)
    except times.OutOfRange as error:
        raise InvalidRequest.field(field, str(error)) from None
    except times.Unreadable:
        raise InvalidRequest.field(
            field, "must be an ISO 8601 time, like 2022-07-19T13:32:56+0000"
        ) from None


def time_range(
    raw_from: str | None, raw_to: str | None, now: datetime
) -> tuple[datetime, datetime]:
    """[from, to): either missing is 30 minutes from the other; both missing ends now."""
    since = parse_time(raw_from, "from") if raw_from else None
    until = parse_time(raw_to, "to") if raw_to else None
    if since is None and until is None:
        until = now
    if since is None:
        assert until is not None
        since = until - DEFAULT_RANGE
    if until is None:
        until = since + DEFAULT_RANGE
    if since >= until:
        raise InvalidRequest.field("from", "must be before to")
    return since, until


def batch_size(raw: str | None) -> int:
    if raw is None or raw == "":
        return DEFAULT_BATCH
    value = ascii_int(raw.strip(), low=1, high=MAX_BATCH)
    if value is None:
        raise InvalidRequest.field("batch", f"must be an integer from 1 to {MAX_BATCH}")
    return value


def newest_first(raw: str | None) -> bool:
    if raw is None or raw == "" or raw == "newest_first":
        return True
    if raw == "oldest_first":
        return False
    raise InvalidRequest.field("order", "must be newest_first or oldest_first")


# ------------------------------------------------------------------------------- cursors


def fingerprint(
    team_id: int,
    source_ids: Sequence[int],
    query: str,
    since: datetime,
    until: datetime,
    newest: bool,
) -> str:
    """What a cursor belongs to: the same team, sources, query, range and order."""
    material = orjson.dumps(
        [team_id, sorted(source_ids), query, since.isoformat(), until.isoformat(), newest]
    )
    return hashlib.sha256(material).hexdigest()[:16]


def encode_cursor(box: SecretBox, owner: str, last: StoredEvent) -> str:
    """An opaque, authenticated cursor: the position after `last` in this query's order."""
    micros = int(last.dt.timestamp() * 1_000_000)
    payload = orjson.dumps([_CURSOR_VERSION, owner, micros, last.id]).decode()
    sealed = box.encrypt(payload).removeprefix("v1.")
    # URL-safe: the cursor travels in a query string.
    return sealed.replace("+", "-").replace("/", "_").rstrip("=")


def decode_cursor(box: SecretBox, owner: str, raw: str) -> tuple[datetime, int]:
    """(dt, id) of a cursor this API gave for this very query; else a 422 naming `cursor`."""
    invalid = InvalidRequest.field("cursor", "is not a cursor of this query (take pagination.next)")
    if len(raw) > 512:
        raise invalid
    padded = raw.replace("-", "+").replace("_", "/") + "=" * (-len(raw) % 4)
    try:
        payload = orjson.loads(box.decrypt("v1." + padded))
    except (ValueError, binascii.Error, orjson.JSONDecodeError):
        raise invalid from None
    match payload:
        case [1, str() as belongs, int() as micros, int() as event_id] if belongs == owner:
            try:
                at = datetime.fromtimestamp(micros / 1_000_000, UTC)
            except (OverflowError, OSError, ValueError):
                raise invalid from None
            return at, event_id
    raise invalid


# ---------------------------------------------------------------------------- rendering


def event_object(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw.decode("utf-8", "replace")


def format_dt(at: datetime) -> str:
    return at.astimezone(UTC).strftime(DT_FORMAT)


def row(event: StoredEvent) -> dict[str, Any]:
    """One `data` row: `dt` and `source_id` first, then the event's fields as sent (an event
    that is not a JSON object is shown under `message`); the row's own `dt` and `source_id`
    win over the event's."""
    sent = event_object(event.raw)
    fields: dict[str, Any] = sent if isinstance(sent, dict) else {"message": sent}
    dt, source_id = format_dt(event.dt), str(event.source_id)
    shown: dict[str, Any] = {"dt": dt, "source_id": source_id}
    shown.update(fields)  # keys already there keep their place
    shown["dt"], shown["source_id"] = dt, source_id
    return shown
