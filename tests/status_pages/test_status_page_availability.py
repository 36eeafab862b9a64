"""The status/availability/history function, on cells of observed time and incidents."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from watchpost.status_pages.availability import (
    Cell,
    Incident,
    Marking,
    Record,
    aggregate_state,
    combine,
    current_status,
    observed_span,
    summarize,
)

NOW = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
UTC_ZONE = ZoneInfo("UTC")
ALWAYS = (observed_span(NOW - timedelta(days=30), NOW),)


def at(day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(2026, 1, day, hour, minute, tzinfo=UTC)


def hours(
    first: datetime, count: int, *, observed: float = 3600, maintenance: float = 0
) -> list[Cell]:
    return [
        Cell(first + timedelta(hours=n), first + timedelta(hours=n + 1), observed, maintenance)
        for n in range(count)
    ]


def test_no_data_is_never_a_perfect_day() -> None:
    summary = summarize(Record(), Marking(), now=NOW, days=7, tz=UTC_ZONE)
    assert summary.status == "not_monitored"
    assert summary.availability == 1.0  # a number, as the spec types it
    assert [d["status"] for d in summary.status_history] == ["not_monitored"] * 7
    assert [d["day"] for d in summary.status_history][-1] == "2026-01-10"


def test_downtime_counts_against_observed_time_only() -> None:
    record = Record(
        cells=(observed_span(at(9), NOW),),  # observed from the start of the 9th: 36 hours
        incidents=(Incident(at(9, 1), at(9, 4)),),
        observed_now=True,
    )
    summary = summarize(record, Marking(), now=NOW, days=3, tz=UTC_ZONE)
    days = summary.status_history
    assert [d["status"] for d in days] == ["not_monitored", "downtime", "operational"]
    assert days[1]["downtime_duration"] == 3 * 3600
    assert summary.availability == round(1 - 3 / 36, 6)
    assert summary.status == "operational"


def test_incident_time_while_unobserved_is_not_downtime() -> None:
    # observed 15 minutes of each hour of the 10th; an incident covers 02:00-04:00
    record = Record(
        cells=hours(at(10), 12, observed=900), incidents=(Incident(at(10, 2), at(10, 4)),)
    )
    summary = summarize(record, Marking(), now=NOW, days=1, tz=UTC_ZONE)
    (today,) = summary.status_history
    assert today["downtime_duration"] == 2 * 900
    assert summary.availability == round(1 - 1800 / (12 * 900), 6)


def test_open_incident_means_downtime_now() -> None:
    record = Record(
        cells=ALWAYS, incidents=(Incident(NOW - timedelta(hours=1)),), observed_now=True
    )
    assert summarize(record, Marking(), now=NOW, days=7, tz=UTC_ZONE).status == "downtime"


def test_not_observed_now_is_not_monitored() -> None:
    record = Record(cells=ALWAYS, incidents=(Incident(NOW - timedelta(hours=1)),))
    assert current_status(record, Marking(), NOW) == "not_monitored"


def test_marking_rules_choose_down_degraded_or_ignored() -> None:
    incident = Incident(NOW - timedelta(hours=1), metadata={"owner": ["payments"]})
    record = Record(cells=ALWAYS, incidents=(incident,), observed_now=True)
    assert current_status(record, Marking(down_for="no_incident"), NOW) == "operational"
    degraded = Marking(down_for="no_incident", degraded_for="any_incident")
    assert current_status(record, degraded, NOW) == "degraded"
    match = Marking(
        down_for="incident_matching_metadata", down_rule=("owner", frozenset({"payments"}))
    )
    assert current_status(record, match, NOW) == "downtime"
    miss = Marking(down_for="incident_matching_metadata", down_rule=("owner", frozenset({"x"})))
    assert current_status(record, miss, NOW) == "operational"


def test_degraded_days_have_no_downtime() -> None:
    record = Record(cells=ALWAYS, incidents=(Incident(at(10, 1), at(10, 2)),), observed_now=True)
    rules = Marking(down_for="no_incident", degraded_for="any_incident")
    summary = summarize(record, rules, now=NOW, days=1, tz=UTC_ZONE)
    assert summary.status_history[0]["status"] == "degraded"
    assert summary.status_history[0]["downtime_duration"] == 0
    assert summary.availability == 1.0


def test_maintenance_is_not_downtime() -> None:
    cells = [*hours(at(10), 2), *hours(at(10, 2), 2, maintenance=3600), *hours(at(10, 4), 8)]
    record = Record(cells=cells, incidents=(Incident(at(10, 3), at(10, 5)),), observed_now=True)
    summary = summarize(record, Marking(), now=NOW, days=1, tz=UTC_ZONE)
    (today,) = summary.status_history
    assert today["maintenance_duration"] == 2 * 3600
    assert today["downtime_duration"] == 3600
    assert summary.availability == round(1 - 1 / 10, 6)


def test_maintenance_now() -> None:
    record = Record(cells=ALWAYS, observed_now=True, maintenance_now=True)
    assert current_status(record, Marking(), NOW) == "maintenance"


def test_paused_item_is_not_monitored() -> None:
    record = Record(cells=ALWAYS, observed_now=True, paused=True)
    assert current_status(record, Marking(), NOW) == "not_monitored"


def test_days_follow_the_page_time_zone() -> None:
    record = Record(cells=ALWAYS, incidents=(Incident(at(10, 1), at(10, 2)),), observed_now=True)
    tokyo = summarize(record, Marking(), now=NOW, days=2, tz=ZoneInfo("Asia/Tokyo"))
    # 01:00-02:00 UTC is 10:00-11:00 on the 10th in Tokyo; now is 21:00 there
    assert [d["day"] for d in tokyo.status_history] == ["2026-01-09", "2026-01-10"]
    assert tokyo.status_history[1]["status"] == "downtime"


def test_an_hour_across_a_local_midnight_is_shared_in_proportion() -> None:
    # Kolkata is UTC+05:30: its 10th starts at 18:30 UTC on the 9th
    kolkata = ZoneInfo("Asia/Kolkata")
    record = Record(cells=[Cell(at(9, 18), at(9, 19), 3600, maintenance=3600)])
    summary = summarize(record, Marking(), now=NOW, days=2, tz=kolkata)
    assert [d["maintenance_duration"] for d in summary.status_history] == [1800, 1800]


def test_group_takes_the_worst_status_and_weights_availability_by_time() -> None:
    # over the 2-day window: 36 h observed, none down; 12 h observed, 6 down
    long = Record(cells=(observed_span(at(1), NOW),), observed_now=True)
    short = Record(
        cells=(observed_span(at(10), NOW),),
        incidents=(Incident(at(10, 6)),),
        observed_now=True,
    )
    parts = [summarize(r, Marking(), now=NOW, days=2, tz=UTC_ZONE) for r in (long, short)]
    group = combine(parts, days=2)
    assert group.status == "downtime"
    assert group.availability == round(1 - 6 / 48, 6)  # the plain mean would be 0.75
    assert [d["status"] for d in group.status_history] == ["operational", "downtime"]
    assert group.status_history[1]["downtime_duration"] == 6 * 3600
    empty = combine([summarize(Record(), Marking(), now=NOW, days=2, tz=UTC_ZONE)], days=2)
    assert empty.status == "not_monitored" and empty.availability == 1.0
    assert combine(parts, days=2, paused=True).status == "not_monitored"


def test_aggregate_state_is_the_worst() -> None:
    assert aggregate_state([]) == "operational"
    assert aggregate_state(["operational", "not_monitored"]) == "operational"
    assert aggregate_state(["maintenance", "degraded"]) == "degraded"
    assert aggregate_state(["degraded", "downtime", "operational"]) == "downtime"
