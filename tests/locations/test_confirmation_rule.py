"""The confirmation rule and a reported check's time, as pure functions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.factories.hostile_times import HOSTILE_TIMES
from watchpost.monitors.confirmation import LocationResult, holds, rule_problems, verdict
from watchpost.probing.protocol_endpoints import ResultIn, stamped

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
SINCE = NOW - timedelta(minutes=2)


def result(name: str, ok: bool | None, *, ago_s: int = 10, offline: bool = False) -> LocationResult:
    return LocationResult(
        name=name,
        checked_at=NOW - timedelta(seconds=ago_s),
        ok=ok,
        error=None if ok else "timed out",
        offline=offline,
    )


@pytest.mark.parametrize(
    ("rule", "failed", "online", "at_least", "down"),
    [
        ("majority", 1, 3, None, False),
        ("majority", 2, 3, None, True),
        ("majority", 1, 2, None, False),
        ("majority", 1, 1, None, True),
        ("any", 1, 3, None, True),
        ("all", 2, 3, None, False),
        ("all", 3, 3, None, True),
        ("at_least", 1, 3, 2, False),
        ("at_least", 2, 3, 2, True),
        ("majority", 0, 3, None, False),
    ],
)
def test_holds(rule: str, failed: int, online: int, at_least: int | None, down: bool) -> None:
    assert holds(rule, failed=failed, answered=online, at_least=at_least) is down


def test_silent_and_offline_locations_never_fail() -> None:
    results = [
        result("local", True),
        result("eu-west", False),
        result("us-east", False, offline=True),  # its agent died: left out
        result("as-east", None),  # online, not answered yet: counts, not as failing
    ]
    found = verdict(results, rule="majority", at_least=None, since=SINCE)
    assert (found.down, found.degraded) == (False, True)
    assert found.error == "Down from eu-west (timed out); up from local"
    assert set(found.silent) == {"us-east", "as-east"}


def test_a_stale_result_is_silence() -> None:
    results = [result("local", True), result("eu-west", False, ago_s=600)]
    found = verdict(results, rule="any", at_least=None, since=SINCE)
    assert (found.down, found.degraded) == (False, False)


def test_the_error_names_every_failing_location() -> None:
    results = [result("a", False), result("b", False), result("c", True)]
    found = verdict(results, rule="majority", at_least=None, since=SINCE)
    assert found.down
    assert found.error == "Down from a (timed out) and b (timed out); up from c"
    assert [r["status"] for r in found.regions()] == ["down", "down", "up"]


def test_at_least_needs_its_count() -> None:
    assert rule_problems({"confirmation_rule": "at_least"}) != []
    assert rule_problems({"confirmation_rule": "majority", "confirmation_locations": 2}) != []
    assert rule_problems({"confirmation_rule": "at_least", "confirmation_locations": 2}) == []


def _reported(age_ms: int, finished_at: datetime | None) -> ResultIn:
    stamp = finished_at.isoformat() if finished_at else None
    return ResultIn(token="t", ok=True, latency_ms=1, age_ms=age_ms, finished_at=stamp)


def test_a_result_is_stamped_with_when_it_ran() -> None:
    by_age = NOW - timedelta(seconds=5)
    assert stamped(_reported(5000, None), received=NOW) == by_age
    # Held up in transit (a server starting): the agent's earlier stamp is taken.
    earlier = by_age - timedelta(seconds=20)
    assert stamped(_reported(5000, earlier), received=NOW) == earlier
    # A clock far behind, or ahead of what its age allows, is not trusted.
    assert stamped(_reported(5000, by_age - timedelta(hours=1)), received=NOW) == by_age
    assert stamped(_reported(5000, NOW), received=NOW) == by_age
    assert stamped(_reported(2 * 86_400_000, None), received=NOW) == NOW - timedelta(days=1)


@pytest.mark.parametrize(
    "stamp", [*[value for value in HOSTILE_TIMES if len(value) <= 40], "2026-11-28T11:59:55"]
)
def test_a_stamp_that_cannot_be_read_held_or_has_no_offset_is_not_trusted(stamp: str) -> None:
    reported = ResultIn(token="t", ok=True, latency_ms=1, age_ms=5000, finished_at=stamp)
    assert stamped(reported, received=NOW) == NOW - timedelta(seconds=5)


def test_a_stamp_in_any_form_rfc_3339_allows_is_read() -> None:
    earlier = NOW - timedelta(seconds=25)
    for stamp in ("2026-11-28T11:59:35z", "2026-11-28 11:59:35 UTC", "2026-11-28T12:59:35+01:00"):
        reported = ResultIn(token="t", ok=True, latency_ms=1, age_ms=5000, finished_at=stamp)
        assert stamped(reported, received=NOW) == earlier, stamp
