"""The monitor status machine driven by explicit times: confirmation, recovery, flapping,
pause, maintenance. No sleeping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from watchpost.clock import FrozenClock
from watchpost.maintenance_windows import in_maintenance, maintenance_end
from watchpost.monitors.models import Monitor
from watchpost.monitors.status_machine import (
    DEFAULT_CAUSE,
    MonitorState,
    Transition,
    apply,
    record_check,
    resume,
    shown_status,
    state_of,
    step,
)

T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)


class Driver:
    """Feeds results to the machine at times a FrozenClock gives."""

    def __init__(self, *, confirmation: int = 0, recovery: int = 0) -> None:
        self.clock = FrozenClock(T0)
        self.state = MonitorState()
        self.confirmation, self.recovery = confirmation, recovery
        self.opened: list[str] = []
        self.resolved = 0

    def check(self, ok: bool, *, after: float = 0, error: str | None = "boom") -> Transition:
        self.clock.advance(after)
        transition = step(
            self.state,
            ok=ok,
            error=None if ok else error,
            at=self.clock.now(),
            confirmation_period=self.confirmation,
            recovery_period=self.recovery,
        )
        self.state = transition.state
        if transition.open_incident is not None:
            self.opened.append(transition.open_incident)
        self.resolved += transition.resolve_incident
        return transition


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


# ------------------------------------------------------------------ pending and up


def test_first_success_makes_a_pending_monitor_up() -> None:
    machine = Driver()
    transition = machine.check(True)
    assert transition.state == MonitorState(status="up")
    assert (transition.status_changed, transition.event) == (True, "Monitor is up")
    assert transition.open_incident is None and not transition.resolve_incident


def test_success_while_up_changes_nothing() -> None:
    machine = Driver()
    machine.check(True)
    transition = machine.check(True, after=60)
    assert transition.state == MonitorState(status="up")
    assert (transition.status_changed, transition.event) == (False, None)


# -------------------------------------------------------------------- confirmation


def test_confirmation_zero_opens_on_the_first_failure() -> None:
    machine = Driver(confirmation=0)
    machine.check(True)
    transition = machine.check(False, after=60, error="Status 500")
    assert transition.state == MonitorState(
        status="down", failing_since=at(60), last_error="Status 500"
    )
    assert transition.open_incident == "Status 500"
    assert transition.event == "Monitor is down: Status 500"


def test_failure_without_error_text_has_a_default_cause() -> None:
    machine = Driver()
    transition = machine.check(False, error=None)
    assert transition.open_incident == DEFAULT_CAUSE
    assert transition.state.last_error == DEFAULT_CAUSE


def test_failures_open_once_they_have_lasted_the_confirmation_period() -> None:
    machine = Driver(confirmation=180)
    machine.check(True)
    first = machine.check(False, after=60)
    assert first.state == MonitorState(status="up", failing_since=at(60), last_error="boom")
    assert first.open_incident is None and not first.status_changed
    assert first.recheck_at == at(240)
    assert machine.check(False, after=179).open_incident is None  # lasted 179 s
    confirmed = machine.check(False, after=1)  # lasted 180 s
    assert confirmed.open_incident == "boom"
    assert confirmed.state.status == "down"
    assert confirmed.state.failing_since == at(60)


def test_failures_that_stop_before_confirmation_open_nothing() -> None:
    machine = Driver(confirmation=180)
    machine.check(True)
    machine.check(False, after=60)
    cleared = machine.check(True, after=60)
    assert cleared.state == MonitorState(status="up")
    assert cleared.event == "Check succeeded again before the failure was confirmed"
    # A new run starts from its own first failure, not the old one.
    machine.check(False, after=60)
    assert machine.check(False, after=150).state.status == "up"
    assert machine.opened == []
    assert machine.check(False, after=30).state.status == "down"
    assert machine.opened == ["boom"]


def test_a_pending_monitor_that_fails_stays_pending_until_confirmed() -> None:
    machine = Driver(confirmation=120)
    transition = machine.check(False)
    assert transition.state == MonitorState(status="pending", failing_since=T0, last_error="boom")
    assert machine.check(True, after=60).state == MonitorState(status="up")
    fresh = Driver(confirmation=120)
    fresh.check(False)
    assert fresh.check(False, after=120).state.status == "down"
    assert fresh.opened == ["boom"]


def test_repeated_failures_while_down_open_nothing_more() -> None:
    machine = Driver()
    machine.check(False)
    again = machine.check(False, after=60, error="timeout")
    assert again.open_incident is None and again.event is None and again.timeline is None
    assert again.state == MonitorState(status="down", failing_since=T0, last_error="timeout")


# ------------------------------------------------------------------------ recovery


def test_recovery_zero_resolves_on_the_first_success() -> None:
    machine = Driver(recovery=0)
    machine.check(False)
    transition = machine.check(True, after=60)
    assert transition.state == MonitorState(status="up")
    assert transition.resolve_incident
    assert transition.event == "Monitor is up: no failure for 0 seconds"


def test_recovery_validates_until_the_period_passes_without_failure() -> None:
    machine = Driver(recovery=180)
    machine.check(False)
    first = machine.check(True, after=60)
    assert first.state == MonitorState(
        status="validating", failing_since=T0, recovering_since=at(60)
    )
    assert (first.timeline, first.event) == (
        "check_recovered",
        "Check succeeded; validating recovery",
    )
    assert first.recheck_at == at(240)
    assert not first.resolve_incident
    still = machine.check(True, after=179)
    assert still.state.status == "validating" and not still.resolve_incident
    assert still.event is None
    done = machine.check(True, after=1)
    assert done.resolve_incident and done.state == MonitorState(status="up")
    assert machine.resolved == 1


def test_failure_while_validating_goes_down_without_a_new_incident() -> None:
    machine = Driver(recovery=180)
    machine.check(False)
    machine.check(True, after=60)
    relapse = machine.check(False, after=60, error="timeout")
    assert relapse.state == MonitorState(status="down", failing_since=T0, last_error="timeout")
    assert relapse.open_incident is None
    assert (relapse.timeline, relapse.event) == ("check_failed", "Check failed again: timeout")
    # Recovery starts over: 180 s from the next success, not the first one.
    machine.check(True, after=60)
    assert not machine.check(True, after=120).resolve_incident
    assert machine.check(True, after=60).resolve_incident
    assert (machine.opened, machine.resolved) == (["boom"], 1)


def test_flapping_keeps_one_incident_and_does_not_resolve_early() -> None:
    machine = Driver(confirmation=60, recovery=300)
    machine.check(False)
    machine.check(False, after=60)
    for _ in range(10):
        machine.check(True, after=100)
        machine.check(False, after=100)
    assert machine.state.status == "down"
    assert (len(machine.opened), machine.resolved) == (1, 0)


def test_a_new_outage_after_recovery_opens_a_new_incident() -> None:
    machine = Driver()
    machine.check(False)
    machine.check(True, after=60)
    machine.check(False, after=60, error="again")
    assert (machine.opened, machine.resolved) == (["boom", "again"], 1)


# A result sequence: (seconds since the previous check, ok).
results = st.lists(st.tuples(st.integers(1, 400), st.booleans()), max_size=60)


@settings(max_examples=300, deadline=None)
@given(
    sequence=results,
    confirmation=st.sampled_from([0, 30, 60, 180, 300]),
    recovery=st.sampled_from([0, 60, 180, 600]),
)
def test_any_sequence_follows_the_rules(
    sequence: list[tuple[int, bool]], confirmation: int, recovery: int
) -> None:
    machine = Driver(confirmation=confirmation, recovery=recovery)
    incident_open = False
    last_failure: datetime | None = None
    run_start: datetime | None = None  # first failure of the current run of failures
    for gap, ok in sequence:
        before = machine.state
        transition = machine.check(ok, after=gap)
        now, state = machine.clock.now(), transition.state
        if transition.open_incident is not None:
            assert not incident_open, "two incidents for one outage"
            incident_open = True
        if transition.resolve_incident:
            assert incident_open, "resolved an incident that was not open"
            incident_open = False
        assert state.incident_open == incident_open
        assert state.status in ("pending", "up", "down", "validating")
        if ok:
            run_start = None
            assert state.last_error is None
            if transition.resolve_incident:
                assert before.status in ("down", "validating")
                assert last_failure is not None
                assert now - last_failure > timedelta(0)
                start = before.recovering_since if before.status == "validating" else now
                assert start is not None and now - start >= timedelta(seconds=recovery)
            if state.status == "validating":
                assert state.recovering_since is not None
                assert now - state.recovering_since < timedelta(seconds=recovery)
        else:
            last_failure = now
            run_start = run_start or now
            assert state.status not in ("up", "validating") or state.failing_since == run_start
            assert state.recovering_since is None
            if transition.open_incident is not None:
                assert now - run_start >= timedelta(seconds=confirmation)
            if not incident_open:
                assert now - run_start < timedelta(seconds=confirmation)
                assert state.status == before.status
        if state.status in ("pending", "up"):
            assert not incident_open


# -------------------------------------------------------------- pause and resume


def test_resume_restarts_unconfirmed_failures() -> None:
    state = MonitorState(status="up", failing_since=T0, last_error="boom")
    assert resume(state) == MonitorState(status="up", last_error="boom")
    assert resume(MonitorState(status="pending", failing_since=T0)) == MonitorState()


def test_resume_keeps_an_open_incident_and_restarts_validation() -> None:
    validating = MonitorState(status="validating", failing_since=T0, recovering_since=at(60))
    assert resume(validating) == MonitorState(status="down", failing_since=T0)
    down = MonitorState(status="down", failing_since=T0, last_error="boom")
    assert resume(down) == down


def test_a_long_pause_does_not_count_as_failing_or_recovering() -> None:
    machine = Driver(confirmation=180, recovery=180)
    machine.check(True)
    machine.check(False, after=60)
    machine.state = resume(machine.state)  # paused for a day
    assert machine.check(False, after=86_400).open_incident is None
    down = Driver(recovery=180)
    down.check(False)
    down.check(True, after=60)
    down.state = resume(down.state)
    first = down.check(True, after=86_400)
    assert first.state.status == "validating" and not first.resolve_incident


def test_shown_status_puts_paused_and_maintenance_over_the_machine() -> None:
    down = MonitorState(status="down")
    assert shown_status(down, paused=False, maintenance=False) == "down"
    assert shown_status(down, paused=False, maintenance=True) == "maintenance"
    assert shown_status(down, paused=True, maintenance=True) == "paused"


# -------------------------------------------------------- the monitor's columns


def monitor(**values: object) -> Monitor:
    defaults: dict[str, object] = {
        "confirmation_period": 0,
        "recovery_period": 0,
        "paused": False,
        "status": "pending",
        "check_status": "pending",
        "maintenance_timezone": "UTC",
        "maintenance_days": [],
    }
    return Monitor(**(defaults | values))


def test_state_round_trips_through_the_monitor_columns() -> None:
    target = monitor()
    state = MonitorState(
        status="validating", failing_since=T0, recovering_since=at(5), last_error=None
    )
    apply(target, state)
    assert state_of(target) == state
    assert (target.status, target.check_status) == ("validating", "validating")
    apply(target, state, maintenance=True)
    assert target.status == "maintenance"


def test_a_fresh_monitor_reads_as_pending() -> None:
    assert state_of(Monitor()) == MonitorState()


def test_record_check_uses_the_monitor_periods() -> None:
    target = monitor(confirmation_period=60)
    first = record_check(target, ok=False, error="refused", at=T0)
    assert first.open_incident is None
    assert (target.status, target.failing_since, target.last_error) == ("pending", T0, "refused")
    second = record_check(target, ok=False, error="refused", at=at(60))
    assert second.open_incident == "refused"
    assert (target.status, target.check_status) == ("down", "down")


def test_record_check_ignores_a_result_after_pausing() -> None:
    target = monitor(paused=True, status="paused")
    transition = record_check(target, ok=False, error="refused", at=T0)
    assert transition.open_incident is None and transition.event is None
    assert (target.status, target.check_status, target.last_error) == ("paused", "pending", None)


def test_first_check_after_maintenance_restarts_unconfirmed_failures() -> None:
    target = monitor(
        confirmation_period=120, maintenance_from="13:00:00", maintenance_to="15:00:00"
    )
    record_check(target, ok=True, at=T0, error=None)
    record_check(target, ok=False, error="refused", at=at(60))
    # 13:00: the engine sees the window, checks nothing and shows maintenance.
    window_start = at(3600)
    assert in_maintenance(target, window_start)
    apply(target, state_of(target), maintenance=True)
    end = maintenance_end(target, window_start)
    assert end == at(3 * 3600)
    after = record_check(target, ok=False, error="refused", at=end)
    assert after.open_incident is None
    assert (target.status, target.failing_since) == ("up", end)


def test_an_open_incident_survives_maintenance() -> None:
    target = monitor(recovery_period=60)
    record_check(target, ok=False, error="refused", at=T0)
    record_check(target, ok=True, error=None, at=at(60))
    apply(target, state_of(target), maintenance=True)
    first = record_check(target, ok=True, error=None, at=at(7200))
    assert first.state.status == "validating" and not first.resolve_incident
    assert record_check(target, ok=True, error=None, at=at(7260)).resolve_incident
