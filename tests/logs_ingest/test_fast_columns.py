"""The native MessagePack path (logs/_msgpack_columns.c via logs/fast_columns.py) against the
Python path it stands in for: for every body it takes, the day tables it gives, column for
column and byte for byte, and the events as lists, equal what parsing.decode + build_batch +
columns.arrow_table give; every body it does not reproduce exactly, it declines (None)."""

from __future__ import annotations

import contextlib
import string
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import msgpack
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from watchpost.logs import fast_columns
from watchpost.logs.batch import EventBatch, to_micros
from watchpost.logs.day_tables import LogTables
from watchpost.logs.parsing import MSGPACK, Unparseable, build_batch, decode

RECEIVED = datetime(2026, 11, 23, 12, 0, 0, 123456, tzinfo=UTC)
SPECIAL = ["dt", "timestamp", "date", "level", "severity", "service", "message", "msg", "log"]


def ids(count: int) -> list[int]:
    return list(range(1000, 1000 + count))


def python_path(body: bytes, received: datetime = RECEIVED) -> EventBatch:
    items = decode(body, MSGPACK)
    return build_batch(items, source_id=3, team_id=7, received=received, make_ids=ids)


def native_path(body: bytes, received: datetime = RECEIVED) -> EventBatch | None:
    return fast_columns.build_batch(body, source_id=3, team_id=7, received=received, make_ids=ids)


def day_tables(batch: EventBatch) -> list[pa.Table]:
    tables = LogTables(threading.Lock()).tables_of(batch)
    return [t.select(sorted(t.column_names)) for t in tables]


def assert_same(body: bytes, received: datetime = RECEIVED) -> bool:
    """The native path's batch equals the Python path's; False when it declined."""
    fast = native_path(body, received)
    if fast is None:
        return False
    slow = python_path(body, received)
    assert fast.micros == slow.micros
    assert (fast.ids, fast.source_ids, fast.team_ids) == (slow.ids, slow.source_ids, slow.team_ids)
    want, got = day_tables(slow), day_tables(fast)
    assert [t.column_names for t in got] == [t.column_names for t in want]
    for a, b in zip(got, want, strict=True):
        for name in a.column_names:
            assert a.column(name).to_pylist() == b.column(name).to_pylist(), name
        assert a.schema.metadata == b.schema.metadata
    plain = fast.plain()
    assert plain.levels == slow.levels
    assert plain.services == slow.services
    assert plain.messages == slow.messages
    assert plain.raws == slow.raws
    assert plain.attributes == slow.attributes  # (as dicts: the order of paths may differ)
    assert [e.raw for e in fast.events()] == [e.raw for e in slow.events()]
    return True


def test_the_module_is_built() -> None:
    # scripts/install builds it; a missing build would quietly send every body to Python
    assert fast_columns.AVAILABLE


# ------------------------------------------------------------------------- strategies

TEXT = st.text(
    alphabet=st.sampled_from(
        [
            *(string.ascii_letters + string.digits + ' .-_:/\\"'),
            "\x1f",
            "\n",
            "\t",
            "\x00",
            "\x7f",
            "é",
            "İ",
            "ß",
            "Σ",
            "ǅ",
            "€",
            "\u2028",
            "😀",
        ]
    ),
    max_size=12,
)
KEYS = st.one_of(st.sampled_from([*SPECIAL, "name", "a.b", "A", "a", "Level"]), TEXT)
INTS = st.one_of(
    st.integers(-(2**63), 2**64 - 1), st.integers(-5, 300), st.sampled_from([0, 2**63, -(2**63)])
)


def _stamp(at: datetime, form: int) -> str:
    if form == 0:
        return at.isoformat()
    if form == 1:
        return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if form == 2:
        return at.isoformat(timespec="milliseconds")
    if form == 3:
        return at.isoformat(sep=" ")
    if form == 4:
        return at.isoformat().replace("+00:00", " UTC")
    return f" {at.isoformat()} "


TIMES = st.one_of(
    st.builds(
        _stamp,
        st.datetimes(
            min_value=datetime(1900, 1, 1),
            max_value=datetime(2100, 1, 1),
            timezones=st.sampled_from(
                [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8))]
            ),
        ),
        st.integers(0, 5),
    ),
    st.sampled_from(
        [
            "2026-11-23T12:00:00Z",
            "2026-11-23T12:00:00.5+00:00",
            "2026-11-25T12:00:00Z",  # over a day ahead of receipt
            "2026-02-29T00:00:00Z",  # no such day
            "2026-11-23t12:00:00z",
            "1700000000",
            "1700000000123",
            "yesterday",
            "",
            "0001-01-01T00:00:00+01:00",  # out of a datetime's range once in UTC
            "9999-12-31T23:59:59-01:00",
            "1e400",
        ]
    ),
    st.integers(-10, 2**62),
    st.booleans(),
    st.none(),
)
SCALARS = st.one_of(TEXT, INTS, st.booleans(), st.none())


def values(leaves: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=5)
        ),
        max_leaves=12,
    )


EVENTS = st.dictionaries(
    KEYS,
    st.one_of(values(SCALARS), TIMES),
    max_size=8,
)
SHAPES: dict[str, Callable[[list[dict[str, Any]]], bytes]] = {
    "array": lambda events: msgpack.packb(events),
    "one object": lambda events: msgpack.packb(events[0]),
    "stream": lambda events: b"".join(msgpack.packb(e) for e in events),
}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EVENTS, min_size=1, max_size=6), st.sampled_from(sorted(SHAPES)))
def test_every_body_of_text_numbers_and_nesting_is_taken_and_equal(
    events: list[dict[str, Any]], shape: str
) -> None:
    body = SHAPES[shape](events)
    if not assert_same(body):
        # among these values only a path met twice ({"a.b": 1, "a": {"b": 2}}) is Python's
        assert any(_repeats_a_path(e) for e in events)


def _repeats_a_path(event: Any) -> bool:
    from watchpost.logs.parsing import flatten

    seen: list[str] = []

    def walk(value: Any, prefix: str) -> None:
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            path = prefix + str(key)
            if isinstance(item, dict | list) and item:
                walk(item, path + ".")
            else:
                seen.append(path)

    walk(event, "")
    return len(seen) != len(flatten(event))


ANY_LEAF = st.one_of(
    SCALARS,
    st.floats(allow_nan=False),
    st.binary(max_size=4),
    st.builds(msgpack.ExtType, st.integers(1, 5), st.binary(max_size=4)),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(KEYS, values(ANY_LEAF), max_size=6), min_size=1, max_size=4))
def test_bodies_with_any_value_are_equal_or_declined(events: list[dict[str, Any]]) -> None:
    assert_same(msgpack.packb(events, use_bin_type=True))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=64))
def test_arbitrary_bytes_never_crash_and_what_is_taken_is_equal(body: bytes) -> None:
    try:
        python_path(body)
    except Unparseable:
        assert native_path(body) is None
        return
    assert_same(body)


# ----------------------------------------------------------------------- named cases


def test_the_logtail_python_frame_is_taken() -> None:
    event = {
        "dt": "2026-11-23T11:59:58.250000+00:00",
        "level": "ERROR",
        "severity": 4,
        "message": "request b1-0 served in 0 ms",
        "context": {
            "runtime": {"function": "handle", "file": "app.py", "line": 120, "thread_id": 1},
            "system": {"pid": 7777, "process_name": "MainProcess"},
        },
        "stack_info": None,
        "user": {"id": 0, "plan": "free", "tags": ["a", "b"], "extra": {}, "none": []},
    }
    body = msgpack.packb([event, {**event, "message": "second"}], use_bin_type=True)
    assert assert_same(body)
    fast = native_path(body)
    assert fast is not None
    assert fast.plain().levels == ["error", "error"]
    assert fast.micros[0] == to_micros(datetime(2026, 11, 23, 11, 59, 58, 250000, tzinfo=UTC))


@pytest.mark.parametrize(
    "event",
    [
        {"message": {"text": "hi", "code": 3}, "msg": "other"},  # a map message: its JSON
        {"message": None, "msg": "HI"},
        {"msg": [], "log": "x"},
        {"service": {"name": "Api", "version": 2}},
        {"service": {"name": {"first": "x"}}},
        {"service": ["a"]},
        {"service": "web", "level": {"x": 1}, "severity": "WARN"},
        {"level": None, "severity": True},
        {"message": "a\x1fb", "other": "c\x1fD"},
        {"message": "Σίσυφος ΑΣ", "LEVEL": "İ"},
        {},
        {"dt": 1_700_000_000_123_456_789},
        {"dt": "1700000000"},
        {"timestamp": "2026-11-23T12:00:00Z", "dt": None},
        {"date": "2026-11-22T23:59:59.999999-05:00"},
    ],
)
def test_field_rules_match_the_python_path(event: dict[str, Any]) -> None:
    assert assert_same(msgpack.packb([event, event]))


def test_events_over_two_days_split_into_two_tables() -> None:
    body = msgpack.packb(
        [
            {"dt": "2026-11-22T23:59:59Z", "only_yesterday": "y"},
            {"dt": "2026-11-23T00:00:01Z", "only_today": 5},
        ]
    )
    assert assert_same(body)
    fast = native_path(body)
    assert fast is not None and len(day_tables(fast)) == 2


def _deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"d": value}
    return value


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (msgpack.packb([{"a": 1.5}]), "a float"),
        (msgpack.packb([{"a": b"\x00"}], use_bin_type=True), "binary"),
        (msgpack.packb([[1700000000, {"log": "x"}]]), "a Fluent Bit entry"),
        (msgpack.packb(["bare text"]), "a bare value"),
        (msgpack.packb([{1: "x"}]), "a key that is not text"),
        (b"\x92\x81\xa1a\x01\x82\xa1a\x01\xa1a\x02", "a key twice"),
        (msgpack.packb([{"a.b": 1, "a": {"b": 2}}]), "a path twice"),
        (b"\x91\x81\xa1a\xa2\xff\xfe", "text that is not UTF-8"),
        (msgpack.packb([{"a": 1}])[:-1], "a body cut short"),
        (msgpack.packb([{"a": 1}]) + b"\xc1", "garbage after the body"),
        (b"", "an empty body"),
        (b" \n", "white space"),
        (msgpack.packb([]), "no events"),
        (msgpack.packb({"a": {"b": {"c": {}}}} | {"deep": _deep(60)}), "deep nesting"),
        (msgpack.packb([{f"k{i}": i for i in range(70)}]), "a map of many keys"),
        (msgpack.packb([{f"k{i}": i} for i in range(600)]), "over 512 paths"),
        (msgpack.packb([{"dt": msgpack.Timestamp(5)}], datetime=False), "a timestamp"),
        (msgpack.packb([{"dt": msgpack.Timestamp(2**62)}], datetime=False), "one out of range"),
    ],
)
def test_what_the_native_path_declines(body: bytes, why: str) -> None:
    assert native_path(body) is None, why
    with contextlib.suppress(Unparseable):
        python_path(body)  # the Python path decides: events or a 406


def test_a_time_of_the_usual_form_is_read_natively_and_others_by_python() -> None:
    body = msgpack.packb(
        [
            {"dt": "2026-11-23T10:00:00.5+02:00"},
            {"dt": "2026-11-23 10:00:00+02:00"},
            {"dt": "2027-01-01T00:00:00Z"},  # more than a day ahead: the time of receipt
            {"dt": 1_700_000_000_500},
            {"dt": "nonsense"},
        ]
    )
    assert assert_same(body)
    fast = native_path(body)
    assert fast is not None
    at = [datetime.fromtimestamp(m / 1e6, UTC) for m in fast.micros]
    assert at[0] == datetime(2026, 11, 23, 8, 0, 0, 500000, tzinfo=UTC)
    assert at[1] == datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
    assert at[2] == RECEIVED
    assert at[3] == datetime(2023, 11, 14, 22, 13, 20, 500000, tzinfo=UTC)
    assert at[4] == RECEIVED


def test_times_out_of_range_are_the_time_of_receipt_on_both_paths() -> None:
    body = msgpack.packb(
        [
            {"dt": "0001-01-01T00:00:00+01:00"},  # before the year 1 in UTC
            {"dt": "9999-12-31T23:59:59-01:00"},  # after 9999
            {"dt": "0001-01-01T00:00:00Z"},
            {"dt": 10**19},
            {"dt": -1},
        ]
    )
    assert assert_same(body)
    fast = native_path(body)
    assert fast is not None
    assert fast.micros == [to_micros(RECEIVED)] * 2 + [
        to_micros(datetime(1, 1, 1, tzinfo=UTC)),
        to_micros(RECEIVED),
        to_micros(RECEIVED),
    ]


def test_the_kept_state_does_not_leak_between_bodies() -> None:
    first = msgpack.packb([{"x": "1", "y": "2"}] * 50)
    second = msgpack.packb([{"z": "3"}])
    assert assert_same(first)
    assert assert_same(second)
    fast = native_path(second)
    assert fast is not None
    assert fast.paths() == {"z"}
    assert fast.prebuilt is not None and fast.prebuilt.num_rows == 1
