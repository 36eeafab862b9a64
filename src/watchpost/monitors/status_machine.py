"""How check results move a monitor between pending, up, down and validating. Pure: no I/O.

The rules (reference "Monitors"):
- pending or up + success → up; any success clears a run of unconfirmed failures.
- A failure starts `failing_since`. The shown status stays what it was (a new monitor stays
  `pending`, an up one stays `up`) until failures have lasted `confirmation_period` seconds
  (0: the first failure); then → down and an incident opens, its cause the check's error.
  A success before that ends the run and nothing opens.
- down + success → validating (`recovering_since` = that check).
- validating + failure → down again; the open incident simply continues (one outage, one
  incident, however the results flap), and recovery starts over at the next success.
- validating + success with at - recovering_since ≥ `recovery_period` → up and the incident
  resolves (0: the first success resolves at once, so `validating` is never shown).

`paused` and `maintenance` are not states of this machine: they are shown over it (see
`shown_status`) and freeze it. After either, `resume` restarts what was in progress: time
without checks never counts as "failures lasting" or as "recovery without failure".
Pausing leaves an open incident open; after resuming, the next success starts validation
and the next failure keeps the incident going, so an outage is never reported twice.

Persistence: `check_status`, `failing_since`, `recovering_since` and `last_error` columns
of the monitor (`state_of` / `apply`); `status` holds what the API shows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Final, Literal, Protocol

CheckStatus = Literal["pending", "up", "down", "validating"]
TimelineKind = Literal["check_failed", "check_recovered"]
CHECK_STATUSES: Final[dict[str, CheckStatus]] = {
    "pending": "pending",
    "up": "up",
    "down": "down",
    "validating": "validating",
}
DEFAULT_CAUSE: Final = "Check failed"


@dataclass(frozen=True)
class MonitorState:
    """What the machine remembers between checks."""

    status: CheckStatus = "pending"
    failing_since: datetime | None = None
    """First failure of the current run; kept while down as the outage's start."""
    recovering_since: datetime | None = None
    """First success after being down; set only while validating."""
    last_error: str | None = None
    """The error of the latest check; None after a success."""

    @property
    def incident_open(self) -> bool:
        return self.status in ("down", "validating")


@dataclass(frozen=True)
class Transition:
    """The new state and what the engine must do about it."""

    state: MonitorState
    previous: MonitorState
    open_incident: str | None = None
    """Open an incident with this cause."""
    resolve_incident: bool = False
    event: str | None = None
    """A short line for people (logs, timeline); None when nothing worth saying happened."""
    timeline: TimelineKind | None = None
    """Add `event` to the open incident's timeline as this kind."""
    recheck_at: datetime | None = None
    """Check again by then at the latest, so confirmation or recovery is not late."""

    @property
    def status_changed(self) -> bool:
        return self.state.status != self.previous.status


def step(
    state: MonitorState,
    *,
    ok: bool,
    error: str | None,
    at: datetime,
    confirmation_period: int,
    recovery_period: int,
) -> Transition:
    """Apply one check result taken at `at`."""
    if ok:
        return _success(state, at=at, recovery_period=recovery_period)
    return _failure(state, error=error or DEFAULT_CAUSE, at=at, confirmation=confirmation_period)


def _success(state: MonitorState, *, at: datetime, recovery_period: int) -> Transition:
    if state.status in ("pending", "up"):
        new = MonitorState(status="up")
        if state.status == "pending":
            event: str | None = "Monitor is up"
        elif state.failing_since is not None:
            event = "Check succeeded again before the failure was confirmed"
        else:
            event = None
        return Transition(state=new, previous=state, event=event)
    since = state.recovering_since if state.status == "validating" else None
    since = since or at
    if at - since >= timedelta(seconds=recovery_period):
        return Transition(
            state=MonitorState(status="up"),
            previous=state,
            resolve_incident=True,
            event=f"Monitor is up: no failure for {_seconds(recovery_period)}",
        )
    new = replace(state, status="validating", recovering_since=since, last_error=None)
    return Transition(
        state=new,
        previous=state,
        event="Check succeeded; validating recovery" if state.status == "down" else None,
        timeline="check_recovered" if state.status == "down" else None,
        recheck_at=since + timedelta(seconds=recovery_period),
    )


def _failure(state: MonitorState, *, error: str, at: datetime, confirmation: int) -> Transition:
    if state.incident_open:
        new = replace(state, status="down", recovering_since=None, last_error=error)
        validating = state.status == "validating"
        return Transition(
            state=new,
            previous=state,
            event=f"Check failed again: {error}" if validating else None,
            timeline="check_failed" if validating else None,
        )
    since = state.failing_since or at
    if at - since >= timedelta(seconds=confirmation):
        return Transition(
            state=MonitorState(status="down", failing_since=since, last_error=error),
            previous=state,
            open_incident=error,
            event=f"Monitor is down: {error}",
        )
    new = replace(state, failing_since=since, last_error=error)
    return Transition(
        state=new,
        previous=state,
        event=f"Check failed, not yet confirmed: {error}",
        recheck_at=since + timedelta(seconds=confirmation),
    )


def _seconds(value: int) -> str:
    return "1 second" if value == 1 else f"{value} seconds"


def resume(state: MonitorState) -> MonitorState:
    """The state to continue from after a pause or a maintenance window.

    Unconfirmed failures and a validation in progress start over; an open incident stays
    open (validating → down, so recovery must be seen again in full).
    """
    if state.incident_open:
        return replace(state, status="down", recovering_since=None)
    return replace(state, failing_since=None)


def shown_status(state: MonitorState, *, paused: bool, maintenance: bool) -> str:
    """The status the API shows: paused and maintenance cover the machine's status."""
    if paused:
        return "paused"
    if maintenance:
        return "maintenance"
    return state.status


# ----------------------------------------------------------------------- persistence


class Stored(Protocol):
    """The monitor columns the machine reads and writes: a Monitor, or the check engine's
    copy of those columns of a locked row."""

    check_status: str
    failing_since: datetime | None
    recovering_since: datetime | None
    last_error: str | None
    status: str

    @property
    def paused(self) -> bool: ...
    @property
    def confirmation_period(self) -> int: ...
    @property
    def recovery_period(self) -> int: ...


def state_of(monitor: Stored) -> MonitorState:
    """The machine state stored on a monitor."""
    return MonitorState(
        status=CHECK_STATUSES.get(monitor.check_status, "pending"),
        failing_since=monitor.failing_since,
        recovering_since=monitor.recovering_since,
        last_error=monitor.last_error,
    )


def apply(monitor: Stored, state: MonitorState, *, maintenance: bool = False) -> None:
    """Store the state on the monitor and set the status it shows."""
    monitor.check_status = state.status
    monitor.failing_since = state.failing_since
    monitor.recovering_since = state.recovering_since
    monitor.last_error = state.last_error
    monitor.status = shown_status(state, paused=monitor.paused, maintenance=maintenance)


def record_check(monitor: Stored, *, ok: bool, error: str | None, at: datetime) -> Transition:
    """Apply a finished check to the monitor's columns; the caller acts on the decisions.

    The first check after a maintenance window resumes the machine first. A result that
    arrives after the monitor was paused changes nothing.
    """
    state = state_of(monitor)
    if monitor.paused:
        return Transition(state=state, previous=state)
    if monitor.status == "maintenance":
        state = resume(state)
    transition = step(
        state,
        ok=ok,
        error=error,
        at=at,
        confirmation_period=monitor.confirmation_period,
        recovery_period=monitor.recovery_period,
    )
    apply(monitor, transition.state)
    return transition
