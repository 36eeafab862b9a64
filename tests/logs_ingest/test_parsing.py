"""Bodies and events of the hosted ingestion contract, without HTTP: formats, times,
flattening, the Fluent Bit msgpack stream, and what cannot be read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import msgpack
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

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


@pytest.mark.parametrize(
    "value",
    [
        *("yesterday", "", True, None, -5, float("nan"), {"a": 1}, [1]),
        # out of a datetime's range, in every way a dt can be written
        *("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "1e400", "-1e300"),
        *(1e300, -1e300, 2**100, 10**30, "9" * 24, float("inf")),
    ],
)
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


def _stamped(*events: dict[str, Any]) -> bytes:
    packed: bytes = msgpack.packb(list(events), datetime=False)
    return packed


@pytest.mark.parametrize(
    ("body", "index"),
    [
        (_stamped({"dt": msgpack.Timestamp(2**62)}), 0),
        (_stamped({"dt": msgpack.Timestamp(-(2**62))}), 0),
        (_stamped({"dt": msgpack.Timestamp(300_000_000_000)}), 0),  # the year 11476
        (_stamped({"a": 1}, {"at": {"deep": [msgpack.Timestamp(2**40)]}}), 1),
        (_stamped({"a": 1}, {"b": 2}, {msgpack.Timestamp(2**40): "as a key"}), 2),
        (msgpack.packb([{}]) + msgpack.packb([msgpack.Timestamp(-(2**40)), {"log": "x"}]), 1),
    ],
    ids=["huge", "huge negative", "year 11476", "nested", "a key", "a Fluent Bit entry time"],
)
def test_a_msgpack_timestamp_out_of_range_refuses_the_body_naming_its_event(
    body: bytes, index: int
) -> None:
    with pytest.raises(Unparseable) as refused:
        events_of(body, MSGPACK)
    assert f"the event at index {index} holds a timestamp outside the years 1 to 9999" in str(
        refused.value
    )


@given(st.integers(-(2**63), 2**63 - 1), st.integers(0, 999_999_999))
def test_any_msgpack_timestamp_is_a_time_or_a_refusal(seconds: int, nanos: int) -> None:
    body = _stamped({"dt": msgpack.Timestamp(seconds, nanos)})
    try:
        at = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(
            seconds=seconds, microseconds=nanos // 1000
        )
    except OverflowError:
        with pytest.raises(Unparseable, match="index 0"):
            events_of(body, MSGPACK)
        return
    (event,) = events_of(body, MSGPACK)
    assert event.dt == (at if at - RECEIVED <= timedelta(days=1) else RECEIVED)


@given(
    st.one_of(
        st.integers(),
        st.floats(),
        st.datetimes(timezones=st.timezones()).map(lambda at: at.isoformat()),
        st.text(max_size=40),
    )
)
def test_any_json_dt_is_a_time_or_the_time_of_receipt(value: Any) -> None:
    body = orjson.dumps({"dt": value}) if not isinstance(value, int) else b'{"dt": %d}' % value
    try:
        (event,) = events_of(body, JSON)
    except Unparseable:  # an integer orjson does not read (past 64 bits): the body's syntax
        assert isinstance(value, int) and not -(2**63) <= value < 2**64
        return
    assert event.dt.tzinfo is not None


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
