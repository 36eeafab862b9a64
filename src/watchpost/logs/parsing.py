"""Bodies of the hosted ingestion contract (`POST /`) turned into log events.

A body is JSON (one object or an array), NDJSON (one JSON value a line) or MessagePack (one
object, an array, or a stream of objects, as Fluent Bit's `msgpack` format sends its
`[time, record]` / `[[time, metadata], record]` entries). Each event is an object; its time
is its `dt` (Unix seconds, milliseconds, microseconds or nanoseconds, as a number or a string
of digits, or RFC 3339 / ISO 8601 text), else its `timestamp` (Vector's field), else its
`date` (Fluent Bit's), else the time of receipt. The event is kept as sent (`raw`, JSON), the
unreadable time value included.

Nothing here does I/O; a body that cannot be read raises `Unparseable`, for the whole body:
a batch is stored entirely or not at all.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import msgpack
import orjson

from watchpost.logs import msgpack_body
from watchpost.logs.batch import EventBatch, to_micros
from watchpost.logs.events import LogEvent, new_event_ids

JSON: Final = "json"
NDJSON: Final = "ndjson"
MSGPACK: Final = "msgpack"

MEDIA_TYPES: Final[Mapping[str, str]] = {
    "application/json": JSON,
    "text/json": JSON,
    "application/x-ndjson": NDJSON,
    "application/ndjson": NDJSON,
    "application/jsonl": NDJSON,
    "application/x-jsonlines": NDJSON,
    "application/msgpack": MSGPACK,
    "application/x-msgpack": MSGPACK,
    "application/vnd.msgpack": MSGPACK,
}
"""Content types taken, and the format each names."""

TIME_FIELDS: Final = ("dt", "timestamp", "date")
"""Fields read as the event's time, the first one present wins."""
MESSAGE_FIELDS: Final = ("message", "msg", "log")
LEVEL_FIELDS: Final = ("level", "severity")
MAX_DEPTH: Final = 64
"""Levels of nesting flattened into attributes; anything deeper is kept as its JSON text."""
FUTURE_SLACK: Final = timedelta(days=1)
"""How far ahead of its receipt an event's time may be; further, it is the time of receipt."""
MAX_EVENTS: Final = 200_000
"""Events one body may hold (a 20 MiB body of empty objects would otherwise be millions)."""

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_DUMPS_OPTIONS: Final = orjson.OPT_NON_STR_KEYS


class Unparseable(ValueError):
    """The body (or one of its events) cannot be read; nothing of it is stored."""


def media_format(content_type: str) -> str | None:
    """JSON, NDJSON or MSGPACK for a Content-Type header, None for any other type."""
    media = content_type.split(";", 1)[0].strip().lower()
    found = MEDIA_TYPES.get(media)
    if found is None and media.startswith("application/") and media.endswith("+json"):
        return JSON
    return found


# ----------------------------------------------------------------------------- decoding


def decode(data: bytes, kind: str) -> list[tuple[Any, Any]]:
    """The body's events as (event, envelope time) pairs; the envelope time is Fluent Bit's
    entry time (None elsewhere). Raises Unparseable."""
    if not data.strip():
        return []
    if kind == MSGPACK:
        items = _msgpack_items(data)
    elif kind == NDJSON:
        items = _ndjson_items(data)
    else:
        items = _json_items(data)
    events: list[tuple[Any, Any]] = []
    for item in items:
        events.append(item)
        if len(events) > MAX_EVENTS:
            raise Unparseable(f"a body holds at most {MAX_EVENTS} events")
    return events


def _loads(data: bytes | str) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise Unparseable(f"Couldn't parse JSON content ({exc.msg})") from None


def _events_of(value: Any) -> Iterator[tuple[Any, Any]]:
    """A JSON value's events: an array's items, else the value itself."""
    for item in value if isinstance(value, list) else (value,):
        yield item, None


def _json_items(data: bytes) -> Iterator[tuple[Any, Any]]:
    return _events_of(_loads(data))


def _ndjson_items(data: bytes) -> Iterator[tuple[Any, Any]]:
    for line in data.splitlines():
        if line.strip():
            yield from _events_of(_loads(line))  # a line may hold an array of events


def _msgpack_items(data: bytes) -> Iterator[tuple[Any, Any]]:
    try:
        yield from msgpack_body.items(data)
    except msgpack_body.BadMessagePack as exc:
        raise Unparseable(f"Couldn't parse MessagePack content ({exc})") from None


# --------------------------------------------------------------------------------- time


def _from_number(number: float) -> datetime | None:
    """Unix time in seconds, milliseconds, microseconds or nanoseconds, told by magnitude."""
    if not math.isfinite(number) or number < 0:
        return None
    if number < 1e11:  # seconds (up to the year 5138)
        seconds = number
    elif number < 1e14:
        seconds = number / 1e3
    elif number < 1e17:
        seconds = number / 1e6
    else:
        seconds = number / 1e9
    try:
        return _EPOCH + timedelta(seconds=seconds)
    except OverflowError:
        return None


def event_time(value: Any) -> datetime | None:
    """The time a `dt` value names, aware UTC; None when it names none."""
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit():
            return _from_number(int(text)) if len(text) < 25 else None
        try:
            parsed = datetime.fromisoformat(text.replace(" UTC", "Z"))
        except ValueError:
            try:
                return _from_number(float(text))  # "1672490759.123"
            except ValueError:
                return None
        try:
            return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
        except OverflowError:  # "0001-01-01T00:00:00+01:00": before the year 1 in UTC
            return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _from_number(value)
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return None


# ------------------------------------------------------------------------------- events


def _default(value: Any) -> Any:
    """What orjson cannot write itself: bytes as base64, extension types as their payload."""
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode()
    if isinstance(value, msgpack.ExtType):
        return {"ext": value.code, "data": base64.b64encode(value.data).decode()}
    raise TypeError(type(value).__name__)


def dumps(value: Any) -> bytes:
    try:
        return orjson.dumps(value, default=_default, option=_DUMPS_OPTIONS)
    except (orjson.JSONEncodeError, TypeError) as exc:
        raise Unparseable(f"an event cannot be kept ({exc})") from None


def scalar_text(value: Any) -> str:
    """A leaf's text: strings as they are, true/false, null, numbers as JSON writes them."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return orjson.dumps(value).decode()
    if isinstance(value, datetime):
        return value.isoformat()
    return dumps(value).decode().strip('"')


def flatten(event: Mapping[Any, Any]) -> dict[str, str]:
    """Every leaf by its dotted path ("context.runtime.file"); list items by index."""
    out: dict[str, str] = {}
    _flatten_into(event, "", out, 1)
    return out


def _flatten_into(value: Any, prefix: str, out: dict[str, str], depth: int) -> None:
    # The hot loop of ingestion: exact type checks (bool is not int here), strings first.
    items: Iterable[tuple[Any, Any]] = value.items() if type(value) is dict else enumerate(value)
    for key, item in items:
        kind = type(key)
        path = prefix + (key if kind is str else str(key) if kind is int else scalar_text(key))
        kind = type(item)
        if kind is str:
            out[path] = item
        elif kind is dict or kind is list:
            if not item:
                out[path] = "{}" if kind is dict else "[]"
            elif depth >= MAX_DEPTH:
                out[path] = dumps(item).decode()
            else:
                _flatten_into(item, path + ".", out, depth + 1)
        elif kind is int:
            out[path] = str(item)
        else:
            out[path] = scalar_text(item)


def _text_of(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else scalar_text(value)


def level_of(event: Mapping[str, Any]) -> str:
    for name in LEVEL_FIELDS:
        value = event.get(name)
        if value is not None and not isinstance(value, dict | list):
            return _text_of(value).lower()
    return ""


def service_of(event: Mapping[str, Any]) -> str:
    value = event.get("service")
    if isinstance(value, dict):
        value = value.get("name")
    return "" if value is None or isinstance(value, dict | list) else _text_of(value)


def message_of(event: Mapping[str, Any]) -> str:
    for name in MESSAGE_FIELDS:
        value = event.get(name)
        if value is not None:
            return value if isinstance(value, str) else dumps(value).decode()
    return ""


def within_reach(found: datetime | None, received: datetime) -> datetime:
    """`found`, unless it is missing or further ahead than FUTURE_SLACK: the time of receipt
    then (the store keeps a partition per day: far-future times would each open one)."""
    if found is None or found - received > FUTURE_SLACK:
        return received
    return found


def time_of(event: Mapping[str, Any], envelope: Any, received: datetime) -> datetime:
    """The event's time: its first time field that names one, the envelope's, or receipt."""
    for name in TIME_FIELDS:
        if name in event:
            # present but unreadable: the time of receipt (the raw value is kept)
            return within_reach(event_time(event[name]), received)
    if envelope is not None:
        return within_reach(event_time(envelope), received)
    return received


def as_object(item: Any) -> dict[Any, Any]:
    """An event object; a bare value (a string in an array) becomes its message."""
    if isinstance(item, dict):
        return item
    return {"message": _text_of(item)}


def build_batch(
    items: list[tuple[Any, Any]],
    *,
    source_id: int,
    team_id: int,
    received: datetime,
    make_ids: Callable[[int], list[int]] = new_event_ids,
) -> EventBatch:
    """The decoded items as a columnar batch, ids ascending in the body's order.

    The hot loop of ingestion: one pass per event appending to each column (a time already
    seen in the batch, as logtail's one-per-record `dt` strings rarely are, is parsed once).
    """
    count = len(items)
    batch = EventBatch(
        ids=make_ids(count), source_ids=[source_id] * count, team_ids=[team_id] * count
    )
    micros, levels, services = batch.micros, batch.levels, batch.services
    messages, attributes, raws = batch.messages, batch.attributes, batch.raws
    for item, envelope in items:
        event = item if type(item) is dict else as_object(item)
        micros.append(to_micros(time_of(event, envelope, received)))
        levels.append(level_of(event))
        services.append(service_of(event))
        messages.append(message_of(event))
        leaves: dict[str, str] = {}
        _flatten_into(event, "", leaves, 1)
        attributes.append(leaves)
        # text, not bytes: a kept bytes object from orjson costs a realloc (measured 4 times
        # the dump itself); the str of it is a fresh small allocation
        raws.append(dumps(event).decode())
    return batch


def build_events(
    items: list[tuple[Any, Any]],
    *,
    source_id: int,
    team_id: int,
    received: datetime,
    make_ids: Callable[[int], list[int]] = new_event_ids,
) -> list[LogEvent]:
    """LogEvents of decoded items, ids ascending in the body's order."""
    return build_batch(
        items, source_id=source_id, team_id=team_id, received=received, make_ids=make_ids
    ).events()
