"""MessagePack bodies of the hosted ingestion contract read as events: one object, an array,
or objects back to back, and Fluent Bit's `[time, record]` / `[[time, metadata], record]`
entries (its EventTime, extension type 0, as a datetime; MessagePack's timestamps, type -1,
too). parsing.py turns what this reads into events; a body it cannot read raises
BadMessagePack, for the whole body.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import msgpack

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


class BadMessagePack(ValueError):
    """The body cannot be read (the message says why, naming the event when it can)."""


def _ext(code: int, payload: bytes) -> Any:
    """Fluent Bit's EventTime (ext 0: seconds and nanoseconds, big-endian) as a datetime;
    other extension types stay as they are."""
    if code == 0 and len(payload) == 8:
        seconds = int.from_bytes(payload[:4], "big")
        nanos = int.from_bytes(payload[4:], "big")
        return _EPOCH + timedelta(seconds=seconds, microseconds=nanos // 1000)
    return msgpack.ExtType(code, payload)


def _values(data: bytes, timestamp: int) -> Iterator[tuple[Any, Any]]:
    """The body's (event, envelope time) pairs; the unpacker's own errors pass through."""
    unpacker = msgpack.Unpacker(
        raw=False,
        strict_map_key=False,
        timestamp=timestamp,
        ext_hook=_ext,
        max_buffer_size=max(len(data), 1),
    )
    unpacker.feed(data)
    end = 0  # where the last whole value ended: what follows must be nothing
    for value in unpacker:
        end = unpacker.tell()
        if isinstance(value, list):
            if _fluent_entry(value):
                yield _from_fluent_entry(value)
                continue
            for item in value:
                yield (_from_fluent_entry(item) if _fluent_entry(item) else (item, None))
        else:
            yield value, None
    if end != len(data):
        raise BadMessagePack("it ends within a value")


def items(data: bytes) -> Iterator[tuple[Any, Any]]:
    """The body's events as (event, envelope time) pairs; the envelope time is Fluent Bit's
    entry time (None elsewhere). Raises BadMessagePack."""
    try:
        yield from _values(data, timestamp=3)
    except BadMessagePack:
        raise
    except OverflowError:  # a timestamp (ext -1) past what a datetime holds
        raise BadMessagePack(_out_of_range(data)) from None
    except (ValueError, TypeError, msgpack.UnpackException) as exc:  # FormatError, StackError,
        # ... and TypeError for a map whose key is an array or a map (not hashable)
        raise BadMessagePack(str(exc)) from None


def _out_of_range(data: bytes) -> str:
    """Which event holds the timestamp a datetime cannot hold (the body read again, its
    timestamps left as they are: only a refused body pays for it)."""
    try:
        for index, pair in enumerate(_values(data, timestamp=0)):
            stack: list[Any] = list(pair)
            while stack:
                value = stack.pop()
                if isinstance(value, dict):
                    stack.extend(value.keys())
                    stack.extend(value.values())
                elif isinstance(value, list):
                    stack.extend(value)
                elif isinstance(value, msgpack.Timestamp) and not _in_range(value):
                    return (
                        f"the event at index {index} holds a timestamp outside the years 1 to 9999"
                    )
    except (ValueError, TypeError, msgpack.UnpackException):
        pass
    return "a timestamp outside the years 1 to 9999"


def _in_range(stamp: msgpack.Timestamp) -> bool:
    try:
        stamp.to_datetime()
    except OverflowError:
        return False
    return True


def _is_time(value: Any) -> bool:
    return isinstance(value, datetime | float) or (
        isinstance(value, int) and not isinstance(value, bool)
    )


def _fluent_entry(value: Any) -> bool:
    """A Fluent Bit entry: [time, record] or [[time, metadata], record]."""
    if not isinstance(value, list) or len(value) != 2 or not isinstance(value[1], dict):
        return False
    head = value[0]
    if isinstance(head, list):
        return len(head) >= 1 and _is_time(head[0])
    return _is_time(head)


def _from_fluent_entry(value: list[Any]) -> tuple[Any, Any]:
    head = value[0]
    return value[1], head[0] if isinstance(head, list) else head
