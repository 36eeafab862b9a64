"""The LogStore contract (logs/store.py), run on both engines: the embedded one and ClickHouse.

Every test appends through `append`/`append_metrics` and reads back through `search`/
`search_metrics`, so what one engine does, the other must do the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from tests.factories.logs import log_event
from watchpost.logs.clickhouse import ClickHouseStore
from watchpost.logs.embedded import EmbeddedStore
from watchpost.logs.events import LogEvent, MetricPoint, StoredEvent, new_event_ids
from watchpost.logs.store import MAX_LIMIT, Field, LogStore, MetricSearch, Search, Word

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def ids(found: Sequence[StoredEvent | LogEvent]) -> list[int]:
    return [event.id for event in found]


async def test_events_come_back_as_sent_newest_first(logs_store: LogStore) -> None:
    events = [log_event(NOW - timedelta(minutes=i), f"event {i}") for i in range(5)]
    await logs_store.append(events)
    found = await logs_store.search(Search([1]))
    assert ids(found) == [e.id for e in events]
    assert [f.raw for f in found] == [e.raw for e in events]
    assert [f.dt for f in found] == [e.dt for e in events]
    assert all(f.dt.tzinfo is not None and f.source_id == 1 for f in found)


async def test_microseconds_and_oldest_first(logs_store: LogStore) -> None:
    moments = [NOW + timedelta(microseconds=n) for n in (3, 1, 2)]
    events = [log_event(at, "tick") for at in moments]
    await logs_store.append(events)
    found = await logs_store.search(Search([1], newest_first=False))
    assert [f.dt for f in found] == sorted(moments)


async def test_only_the_asked_sources(logs_store: LogStore) -> None:
    mine = log_event(NOW, "mine", source_id=1)
    other = log_event(NOW, "other", source_id=2, team_id=2)
    third = log_event(NOW, "third", source_id=3)
    await logs_store.append([mine, other, third])
    assert ids(await logs_store.search(Search([1]))) == [mine.id]
    assert set(ids(await logs_store.search(Search([1, 3])))) == {mine.id, third.id}
    assert await logs_store.search(Search([])) == []


async def test_since_inclusive_until_exclusive(logs_store: LogStore) -> None:
    events = [log_event(NOW + timedelta(seconds=i), str(i)) for i in range(5)]
    await logs_store.append(events)
    found = await logs_store.search(
        Search([1], since=NOW + timedelta(seconds=1), until=NOW + timedelta(seconds=3))
    )
    assert ids(found) == [events[2].id, events[1].id]


async def test_across_days_and_the_limit(logs_store: LogStore) -> None:
    events = [log_event(NOW - timedelta(hours=10 * i), str(i)) for i in range(8)]  # ≈ 4 days
    await logs_store.append(events)
    assert ids(await logs_store.search(Search([1], limit=3))) == [e.id for e in events[:3]]
    oldest = await logs_store.search(Search([1], newest_first=False, limit=3))
    assert ids(oldest) == [e.id for e in events[::-1][:3]]
    assert await logs_store.search(Search([1], limit=0)) == []


async def test_limit_is_capped(logs_store: LogStore) -> None:
    events = [log_event(NOW + timedelta(milliseconds=i), "many") for i in range(MAX_LIMIT + 20)]
    await logs_store.append(events)
    assert len(await logs_store.search(Search([1], limit=10 * MAX_LIMIT))) == MAX_LIMIT


async def test_cursor_pages_every_event_once_in_both_orders(logs_store: LogStore) -> None:
    # Several events share a dt: the cursor's id breaks the tie.
    events = [log_event(NOW + timedelta(seconds=i // 3), f"e{i}") for i in range(14)]
    await logs_store.append(events)
    for newest_first in (True, False):
        seen: list[int] = []
        before = None
        while True:
            page = await logs_store.search(
                Search([1], newest_first=newest_first, limit=4, before=before)
            )
            if not page:
                break
            seen += ids(page)
            before = (page[-1].dt, page[-1].id)
        key = sorted(events, key=lambda e: (e.dt, e.id), reverse=newest_first)
        assert seen == [e.id for e in key]


async def test_tail_follows_ids_not_times(logs_store: LogStore) -> None:
    first = log_event(NOW, "first")
    await logs_store.append([first])
    late = log_event(NOW - timedelta(days=2), "sent late, dated two days back")
    newer = log_event(NOW + timedelta(seconds=1), "newer")
    await logs_store.append([late, newer])
    found = await logs_store.search(Search([1], after_id=first.id))
    assert ids(found) == [late.id, newer.id]
    assert await logs_store.search(Search([1], after_id=newer.id)) == []


async def test_word_is_a_case_insensitive_substring_of_message_or_values(
    logs_store: LogStore,
) -> None:
    in_message = log_event(NOW, "Payment FAILED for order 7")
    in_value = log_event(NOW, "ok", context__error="card failed twice")
    in_key_only = log_event(NOW, "ok", failed__count="3")
    elsewhere = log_event(NOW, "all good")
    await logs_store.append([in_message, in_value, in_key_only, elsewhere])
    found = await logs_store.search(Search([1], [Word("failed")]))
    assert set(ids(found)) == {in_message.id, in_value.id}
    phrase = await logs_store.search(Search([1], [Word("failed for ORDER")]))
    assert ids(phrase) == [in_message.id]
    unicode = log_event(NOW, "Zürich Straße")
    await logs_store.append([unicode])
    assert ids(await logs_store.search(Search([1], [Word("ZÜRICH")]))) == [unicode.id]


async def test_word_wildcards_are_literal(logs_store: LogStore) -> None:
    percent = log_event(NOW, "disk 50% full")
    other = log_event(NOW, "disk 500 full")
    underscore = log_event(NOW, "user_id missing")
    await logs_store.append([percent, other, underscore])
    assert ids(await logs_store.search(Search([1], [Word("50%")]))) == [percent.id]
    assert ids(await logs_store.search(Search([1], [Word("r_i")]))) == [underscore.id]
    assert await logs_store.search(Search([1], [Word("user%id")])) == []


async def test_field_equality_prefix_and_negation(logs_store: LogStore) -> None:
    app_py = log_event(NOW, "a", context__runtime__file="app.py", level="error")
    app_pyc = log_event(NOW, "b", context__runtime__file="App.Pyc", level="info")
    no_file = log_event(NOW, "c", level="warn")
    await logs_store.append([app_py, app_pyc, no_file])

    async def matching(*terms: Word | Field) -> set[int]:
        return set(ids(await logs_store.search(Search([1], terms))))

    assert await matching(Field("context.runtime.file", "APP.PY")) == {app_py.id}
    assert await matching(Field("context.runtime.file", "app.py*")) == {app_py.id, app_pyc.id}
    assert await matching(Field("level", "error")) == {app_py.id}
    # Negation keeps the events without the field.
    excluded = Field("context.runtime.file", "app.py", negated=True)
    assert await matching(excluded) == {app_pyc.id, no_file.id}
    assert await matching(Field("context.runtime", "app.py")) == set()  # not a leaf
    assert await matching(Field("level", "e*")) == {app_py.id}
    assert await matching(Field("context.runtime.file", "*")) == {app_py.id, app_pyc.id}


async def test_terms_all_hold(logs_store: LogStore) -> None:
    both = log_event(NOW, "timeout talking to db", service="api", level="error")
    word_only = log_event(NOW, "timeout talking to cache", service="api", level="warn")
    await logs_store.append([both, word_only])
    found = await logs_store.search(Search([1], [Word("timeout"), Field("level", "error")]))
    assert ids(found) == [both.id]
    found = await logs_store.search(Search([1], [Word("timeout"), Word("db", negated=True)]))
    assert ids(found) == [word_only.id]


async def test_concurrent_appends_are_all_kept(logs_store: LogStore) -> None:
    batches = [
        [log_event(NOW + timedelta(milliseconds=10 * b + i), f"b{b}") for i in range(10)]
        for b in range(20)
    ]
    await asyncio.gather(*(logs_store.append(batch) for batch in batches))
    found = await logs_store.search(Search([1], limit=MAX_LIMIT))
    assert sorted(ids(found)) == sorted(e.id for batch in batches for e in batch)


async def test_retention_drops_whole_days_per_source(logs_store: LogStore) -> None:
    day = timedelta(days=1)
    short = [log_event(NOW - n * day, f"short {n}", source_id=1) for n in range(6)]
    long = [log_event(NOW - n * day, f"long {n}", source_id=2) for n in range(6)]
    gone = [log_event(NOW - n * day, f"deleted {n}", source_id=9) for n in range(6)]
    await logs_store.append(short + long + gone)
    # Source 1 keeps 2 days, source 2 keeps 4, source 9 is no more (the longest applies).
    dropped = await logs_store.drop_expired(NOW, {1: 2, 2: 4})
    # Day NOW-n ends (n-1) days ago + 12 h: gone once that is ≥ the retention.
    # source 1: n = 3, 4, 5 (ended 2.5, 3.5, 4.5 days ago ≥ 2); sources 2 and 9: n = 5.
    assert dropped == 3 + 1 + 1
    left = await logs_store.search(Search([1, 2, 9], limit=100))
    assert {e.id for e in left} == {
        *(e.id for e in short[:3]),
        *(e.id for e in long[:5]),
        *(e.id for e in gone[:5]),
    }
    # whole days go as partitions (a day table, a ClickHouse partition), not row by row
    assert await day_partitions(logs_store) == {f"{NOW - n * day:%Y%m%d}" for n in range(5)}
    assert await logs_store.drop_expired(NOW, {1: 2, 2: 4}) == 0
    assert await logs_store.drop_expired(NOW + 10 * day, {1: 2, 2: 4}) == 3 + 5 + 5
    assert await logs_store.search(Search([1, 2, 9])) == []
    assert await day_partitions(logs_store) == set()


async def day_partitions(store: LogStore) -> set[str]:
    """The logs partitions the engine holds, as YYYYMMDD: the embedded store's day tables,
    ClickHouse's active parts' partitions of the logs table."""
    if isinstance(store, EmbeddedStore):
        listed = await store._writer.call(
            lambda con: con.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_name LIKE 'logs!_%' ESCAPE '!'"
            ).fetchall()
        )
        return {str(name).removeprefix("logs_") for (name,) in listed}
    assert isinstance(store, ClickHouseStore)
    rows = await store._writer.call(
        lambda client: (
            client.query(
                "SELECT DISTINCT partition_id FROM system.parts "
                "WHERE database = %(db)s AND table = 'logs' AND active",
                parameters={"db": store.db},
            ).result_rows
        )
    )
    return {str(partition) for (partition,) in rows}


async def test_metrics_are_kept_searched_and_expire(logs_store: LogStore) -> None:
    points = [
        MetricPoint(1, 1, NOW - timedelta(days=n), "cpu", 0.5 + n, {"host": "a"}) for n in range(4)
    ] + [MetricPoint(1, 1, NOW, "memory", 1024.0), MetricPoint(2, 2, NOW, "cpu", 9.0)]
    await logs_store.append_metrics(points)
    cpu = await logs_store.search_metrics(MetricSearch([1], name="cpu"))
    assert [(p.dt, p.value, dict(p.tags)) for p in cpu] == [
        (NOW - timedelta(days=n), 0.5 + n, {"host": "a"}) for n in (3, 2, 1, 0)
    ]
    recent = await logs_store.search_metrics(MetricSearch([1], since=NOW - timedelta(hours=1)))
    assert sorted(p.name for p in recent) == ["cpu", "memory"]
    assert await logs_store.drop_expired_metrics(NOW, {1: 1, 2: 1}) == 2
    assert len(await logs_store.search_metrics(MetricSearch([1, 2]))) == 4


async def test_what_was_appended_survives_a_new_store(logs_store: LogStore) -> None:
    events = [log_event(NOW, "kept")]
    await logs_store.append(events)
    await logs_store.close()
    again = reopen(logs_store)
    try:
        assert ids(await again.search(Search([1]))) == [events[0].id]
    finally:
        await again.close()


def reopen(store: LogStore) -> LogStore:
    from watchpost.logs.clickhouse import ClickHouseStore
    from watchpost.logs.embedded import EmbeddedStore

    if isinstance(store, EmbeddedStore):
        return EmbeddedStore(store.folder)
    assert isinstance(store, ClickHouseStore)
    return ClickHouseStore(store.server)


def test_new_event_ids_ascend_and_stay_unique() -> None:
    first = new_event_ids(3000)  # more than one millisecond's share: borrows the next ones
    second = new_event_ids(5)
    everything = first + second
    assert everything == sorted(everything) and len(set(everything)) == len(everything)
    assert all(0 < i < 2**63 for i in everything)
    assert new_event_ids(0) == []
    event = LogEvent(first[0], 1, 1, NOW, "", "", "", {}, b"{}")  # the shape the contract names
    assert event.attributes == {}


async def test_counts_by_slice_are_what_searches_find(logs_store: LogStore) -> None:
    """count_by_slice counts, per slice, exactly the events a search of the same terms lists:
    across a day boundary, other sources and the range's ends left out, a cursor ignored."""
    start = datetime(2026, 11, 20, 23, 0, tzinfo=UTC)
    events = [
        log_event(start + timedelta(minutes=7 * i), "failed" if i % 3 else "fine", level="error")
        for i in range(20)  # 23:00 to 01:13, over midnight; the range ends at 01:00
    ]
    outside = [
        log_event(start - timedelta(seconds=1), "failed"),
        log_event(start + timedelta(hours=2), "failed"),
        log_event(start + timedelta(minutes=5), "failed", source_id=2, team_id=2),
    ]
    await logs_store.append(events + outside)
    until = start + timedelta(hours=2)
    width = timedelta(minutes=15)
    search = Search([1], [Word("failed")], since=start, until=until, limit=1)
    listed = await logs_store.search(Search([1], [Word("failed")], since=start, until=until))
    expected: dict[int, int] = {}
    for event in listed:
        index = (event.dt - start) // width
        expected[index] = expected.get(index, 0) + 1
    assert sum(expected.values()) == 12  # 23:00 to 00:59, two in three
    found = await logs_store.count_by_slice(search, start, width)
    assert found.counts == expected
    assert not found.approximate
    cursor = replace(search, before=(start + timedelta(minutes=30), events[4].id))
    assert (await logs_store.count_by_slice(cursor, start, width)).counts == expected
    nothing = await logs_store.count_by_slice(replace(search, source_ids=[]), start, width)
    assert nothing.counts == {}
