"""The schedule: slots on a per-object grid, no drift, missed slots skipped, even spread."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from watchpost.engine.schedule import EPOCH, next_due, next_slot, phase_ms

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@given(
    object_id=st.integers(1, 10**9),
    interval=st.integers(1, 86_400),
    offset_us=st.integers(0, 10**12),
)
def test_next_slot_is_on_the_grid_and_within_one_interval(
    object_id: int, interval: int, offset_us: int
) -> None:
    after = T0 + timedelta(microseconds=offset_us)
    slot = next_slot("monitor", object_id, interval, after=after)
    assert after < slot <= after + timedelta(seconds=interval)
    since_epoch = (slot - EPOCH) // timedelta(milliseconds=1)
    assert since_epoch % (interval * 1000) == phase_ms("monitor", object_id, interval)


def test_the_next_due_time_comes_from_the_schedule_not_the_end_of_the_check() -> None:
    due = next_slot("monitor", 7, 60, after=T0)
    for took in (0.0, 0.001, 7.0, 59.9):
        finished = due + timedelta(seconds=took)
        assert next_due("monitor", 7, 60, due=due, finished=finished) == due + timedelta(seconds=60)


def test_missed_slots_are_skipped_not_replayed() -> None:
    due = next_slot("monitor", 7, 60, after=T0)
    late = due + timedelta(seconds=3.5 * 60)
    assert next_due("monitor", 7, 60, due=due, finished=late) == due + timedelta(seconds=240)


def test_a_first_check_off_the_grid_joins_the_grid() -> None:
    created = T0 + timedelta(milliseconds=123)
    following = next_due("monitor", 7, 60, due=created, finished=created)
    assert following == next_slot("monitor", 7, 60, after=created)


def test_thirty_thousand_objects_created_at_once_spread_over_the_interval() -> None:
    interval = 60
    firsts = [next_slot("monitor", i, interval, after=T0) for i in range(1, 30_001)]
    per_second = Counter(int((slot - T0).total_seconds()) for slot in firsts)
    assert set(per_second) == set(range(interval))
    mean = 30_000 / interval
    assert min(per_second.values()) > 0.8 * mean
    assert max(per_second.values()) < 1.2 * mean


def test_the_phase_depends_on_kind_and_id() -> None:
    phases = {phase_ms(kind, i, 60) for kind in ("monitor", "collector_target") for i in (1, 2)}
    assert len(phases) == 4
