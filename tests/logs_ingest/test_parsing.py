"""Bodies and events of the hosted ingestion contract, without HTTP: formats, times,
flattening, the Fluent Bit msgpack stream, and what cannot be read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import msgpack
import orjson
import pytest

from watchpost.logs.parsing import (
    JSON,
    MSGPACK,
    NDJSON,
    Unparseable,
    build_events,
    decode,
    event_time,
    flatten,
    media_format,
)

RECEIVED = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
WHEN = datetime(2022, 12, 31, 12, 45, 59, 123000, tzinfo=UTC)


def events_of(body: bytes, kind: str) -> list[Any]:
    return build_events(decode(body, kind), source_id=7, team_id=3, received=RECEIVED)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1672490759, datetime(2022, 12, 31, 12, 45, 59, tzinfo=UTC)),
        (1672490759.123, WHEN),
        (1672490759123, WHEN),
        ("1672490759123", WHEN),
        (1672490759123000, WHEN),
        (1672490759123000000, WHEN),
        ("1672490759123000000", WHEN),
        ("2022-12-31T12:45:59.123Z", WHEN),
        ("2022-12-31T12:45:59.123000000Z", WHEN),
        ("2022-12-31 14:45:59.123+02:00", WHEN),
        ("2022-12-31T12:45:59.123", WHEN),  # no offset: UTC
    ],
)
def test_dt_in_every_unit_and_text(value: Any, expected: datetime) -> None:
    found = event_time(value)
    assert found is not None
    assert abs((found - expected).total_seconds()) < 1e-3


@pytest.mark.parametrize("value", ["yesterday", "", True, None, -5, float("nan"), {"a": 1}, [1]])
def test_unreadable_dt_names_no_time(value: Any) -> None:
    assert event_time(value) is None


def test_an_unreadable_dt_is_the_time_of_receipt_and_kept_as_sent() -> None:
    (event,) = events_of(b'{"dt": "tuesday", "message": "hi"}', JSON)
    assert event.dt == RECEIVED
    assert orjson.loads(event.raw) == {"dt": "tuesday", "message": "hi"}
    assert event.attributes["dt"] == "tuesday"


def test_a_missing_dt_is_the_time_of_receipt() -> None:
    (event,) = events_of(b'{"message": "hi"}', JSON)
    assert event.dt == RECEIVED


def test_vector_timestamp_and_fluent_bit_date_stand_in_for_dt() -> None:
    vector, fluent = events_of(
        b'[{"timestamp": "2022-12-31T12:45:59.123Z"}, {"date": 1672490759.123}]', JSON
    )
    assert vector.dt == WHEN
    assert abs((fluent.dt - WHEN).total_seconds()) < 1e-3


def test_an_event_is_flattened_with_level_service_and_message() -> None:
    body = {
        "dt": "2022-12-31T12:45:59.123Z",
        "level": "ERROR",
        "message": "boom",
        "service": {"name": "checkout"},
        "context": {"runtime": {"file": "app.py", "line": 42}},
        "tags": ["a", "b"],
        "ok": True,
        "nothing": None,
        "ratio": 0.5,
    }
    (event,) = events_of(orjson.dumps(body), JSON)
    assert (event.level, event.service, event.message) == ("error", "checkout", "boom")
    assert event.source_id == 7 and event.team_id == 3 and event.dt == WHEN
    assert event.attributes == {
        "dt": "2022-12-31T12:45:59.123Z",
        "level": "ERROR",
        "message": "boom",
        "service.name": "checkout",
        "context.runtime.file": "app.py",
        "context.runtime.line": "42",
        "tags.0": "a",
        "tags.1": "b",
        "ok": "true",
        "nothing": "null",
        "ratio": "0.5",
    }
    assert orjson.loads(event.raw) == body


def test_severity_msg_and_log_fill_in_for_level_and_message() -> None:
    first, second = events_of(b'[{"severity": "Warn", "msg": "a"}, {"log": "b"}]', JSON)
    assert (first.level, first.message) == ("warn", "a")
    assert (second.level, second.message) == ("", "b")


def test_json_array_ndjson_and_msgpack_give_the_same_events() -> None:
    values = [{"message": "A", "n": 1}, {"message": "B", "n": 2}]
    for body, kind in (
        (orjson.dumps(values), JSON),
        (b'{"message":"A","n":1}\n\n{"message":"B","n":2}', NDJSON),
        (msgpack.packb(values), MSGPACK),
        (msgpack.packb(values[0]) + msgpack.packb(values[1]), MSGPACK),
    ):
        events = events_of(body, kind)
        assert [orjson.loads(event.raw) for event in events] == values, kind
        assert events[0].id < events[1].id


def test_fluent_bit_msgpack_entries_old_and_new() -> None:
    event_time_ext = msgpack.ExtType(
        0, (1672490759).to_bytes(4, "big") + (123_000_000).to_bytes(4, "big")
    )
    body = (
        msgpack.packb([event_time_ext, {"log": "old style"}])
        + msgpack.packb([[event_time_ext, {}], {"log": "new style"}])
        + msgpack.packb([1672490759, {"log": "integer time"}])
    )
    old, new, integer = events_of(body, MSGPACK)
    assert (old.message, new.message, integer.message) == ("old style", "new style", "integer time")
    assert old.dt == WHEN and new.dt == WHEN
    assert integer.dt == datetime(2022, 12, 31, 12, 45, 59, tzinfo=UTC)
    assert orjson.loads(new.raw) == {"log": "new style"}


def test_msgpack_binary_values_are_kept_as_base64() -> None:
    (event,) = events_of(
        msgpack.packb({"message": "x", "blob": b"\x00\x01"}, use_bin_type=True), MSGPACK
    )
    assert orjson.loads(event.raw)["blob"] == "AAE="


def test_a_bare_value_in_an_array_becomes_the_message() -> None:
    (event,) = events_of(b'["plain line"]', JSON)
    assert event.message == "plain line"


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (b'{"message": ', JSON),
        (b'{"a": 1}\n{oops', NDJSON),
        (b"\x92\x81\xa7message", MSGPACK),  # ends within the array
        (b"\xc1", MSGPACK),  # a byte msgpack never uses
        (b"\x81\x90\x01", MSGPACK),  # a map whose key is an array
        (b"\x91\x81\x80\x01", MSGPACK),  # ... or a map
        (b"[" * 300 + b"]" * 300, JSON),  # deeper than an event may be kept
    ],
)
def test_unreadable_bodies_are_refused_whole(body: bytes, kind: str) -> None:
    with pytest.raises(Unparseable):
        events_of(body, kind)


def test_an_empty_body_holds_no_events() -> None:
    assert events_of(b"  \n", JSON) == [] and events_of(b"", MSGPACK) == []


def test_deep_nesting_is_kept_as_text_past_the_flattening_depth() -> None:
    value: Any = "leaf"
    for _ in range(100):
        value = {"k": value}
    flat = flatten({"root": value})
    (key,) = flat
    assert key.count(".") == 63  # "root" and 63 levels of "k" by path, the rest as JSON
    assert flat[key] == '{"k":' * 37 + '"leaf"' + "}" * 37


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("application/json", JSON),
        ("application/json; charset=utf-8", JSON),
        ("application/x-ndjson", NDJSON),
        ("application/msgpack", MSGPACK),
        ("Application/X-MsgPack", MSGPACK),
        ("application/vnd.api+json", JSON),
        ("text/plain", None),
        ("", None),
    ],
)
def test_content_types(header: str, expected: str | None) -> None:
    assert media_format(header) == expected


def test_a_time_more_than_a_day_ahead_is_the_time_of_receipt() -> None:
    ahead = (RECEIVED + timedelta(days=2)).isoformat()
    near = (RECEIVED + timedelta(hours=2)).isoformat()
    far, close = events_of(orjson.dumps([{"dt": ahead}, {"dt": near}]), JSON)
    assert far.dt == RECEIVED and orjson.loads(far.raw)["dt"] == ahead
    assert close.dt == RECEIVED + timedelta(hours=2)
