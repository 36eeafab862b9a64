"""The status/availability/history function, on records the check engine will fill."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from watchpost.status_pages.availability import (
    Incident,
    Marking,
    Record,
    Span,
    aggregate_state,
    current_status,
    summarize,
)

NOW = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
UTC_ZONE = ZoneInfo("UTC")
ALWAYS = (Span(NOW - timedelta(days=30)),)


def at(day: int, hour: int = 0) -> datetime:
    return datetime(2026, 1, day, hour, tzinfo=UTC)


def test_no_data_is_never_a_perfect_day() -> None:
    summary = summarize(Record(), Marking(), now=NOW, days=7, tz=UTC_ZONE)
    assert summary.status == "not_monitored"
    assert summary.availability is None
    assert [d["status"] for d in summary.status_history] == ["not_monitored"] * 7
    assert [d["day"] for d in summary.status_history][-1] == "2026-01-10"


def test_downtime_counts_against_observed_time_only() -> None:
    record = Record(
        observed=(Span(at(9)),),  # observed from the start of the 9th: 36 hours
        incidents=(Incident(at(9, 1), at(9, 4)),),
    )
    summary = summarize(record, Marking(), now=NOW, days=3, tz=UTC_ZONE)
    days = summary.status_history
    assert [d["status"] for d in days] == ["not_monitored", "downtime", "operational"]
    assert days[1]["downtime_duration"] == 3 * 3600
    assert summary.availability == round(1 - 3 / 36, 6)
    assert summary.status == "operational"


def test_open_incident_means_downtime_now() -> None:
    record = Record(observed=ALWAYS, incidents=(Incident(NOW - timedelta(hours=1)),))
    assert summarize(record, Marking(), now=NOW, days=7, tz=UTC_ZONE).status == "downtime"


def test_marking_rules_choose_down_degraded_or_ignored() -> None:
    incident = Incident(NOW - timedelta(hours=1), metadata={"owner": ["payments"]})
    record = Record(observed=ALWAYS, incidents=(incident,))
    assert current_status(record, Marking(down_for="no_incident"), NOW) == "operational"
    degraded = Marking(down_for="no_incident", degraded_for="any_incident")
    assert current_status(record, degraded, NOW) == "degraded"
    match = Marking(
        down_for="incident_matching_metadata", down_rule=("owner", frozenset({"payments"}))
    )
    assert current_status(record, match, NOW) == "downtime"
    miss = Marking(down_for="incident_matching_metadata", down_rule=("owner", frozenset({"x"})))
    assert current_status(record, miss, NOW) == "operational"


def test_maintenance_is_not_downtime() -> None:
    record = Record(
        observed=ALWAYS,
        maintenance=(Span(at(10, 2), at(10, 4)),),
        incidents=(Incident(at(10, 3), at(10, 5)),),
    )
    summary = summarize(record, Marking(), now=NOW, days=1, tz=UTC_ZONE)
    (today,) = summary.status_history
    assert today["maintenance_duration"] == 2 * 3600
    assert today["downtime_duration"] == 3600
    assert summary.availability == round(1 - 1 / 10, 6)


def test_paused_item_is_not_monitored() -> None:
    assert current_status(Record(observed=ALWAYS, paused=True), Marking(), NOW) == "not_monitored"


def test_days_follow_the_page_time_zone() -> None:
    record = Record(observed=ALWAYS, incidents=(Incident(at(10, 1), at(10, 2)),))
    tokyo = summarize(record, Marking(), now=NOW, days=2, tz=ZoneInfo("Asia/Tokyo"))
    # 01:00-02:00 UTC is 10:00-11:00 on the 10th in Tokyo; now is 21:00 there
    assert [d["day"] for d in tokyo.status_history] == ["2026-01-09", "2026-01-10"]
    assert tokyo.status_history[1]["status"] == "downtime"


def test_aggregate_state_is_the_worst() -> None:
    assert aggregate_state([]) == "operational"
    assert aggregate_state(["operational", "not_monitored"]) == "operational"
    assert aggregate_state(["maintenance", "degraded"]) == "degraded"
    assert aggregate_state(["degraded", "downtime", "operational"]) == "downtime"
