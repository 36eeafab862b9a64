"""An object's state in the console's five words, from what the API shows as `status`.

The console says Up, Down, Paused, Pending or Maintenance for every kind of object; the
domains keep a few more statuses. These are the rules console/overview_query.py applies in
SQL to a page of rows, for one object in Python: a detail page says the same word.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final, Literal

from watchpost.collectors.models import CollectorTarget
from watchpost.heartbeats.models import Heartbeat
from watchpost.maintenance_windows import in_maintenance
from watchpost.monitors.models import Monitor

State = Literal["up", "down", "paused", "pending", "maintenance"]

_MONITOR: Final[dict[str, State]] = {
    "up": "up",
    "down": "down",
    "paused": "paused",
    "pending": "pending",
    "maintenance": "maintenance",
    # A success after a confirmed outage, recovery not yet confirmed (as the overview says).
    "validating": "pending",
}
_OTHERS: Final[dict[str, State]] = {
    "up": "up",
    "down": "down",
    "paused": "paused",
    "pending": "pending",
    "disabled": "paused",
}


def monitor_state(monitor: Monitor) -> State:
    """The monitor's `status` (the API's attribute) in the console's words."""
    return _MONITOR.get(monitor.status, "pending")


def heartbeat_state(heartbeat: Heartbeat, now: datetime) -> State:
    """The heartbeat's `status`; an up or down one is in Maintenance while its window is
    open (the rule heartbeats.checking.observe_heartbeats records, as the overview reads)."""
    if heartbeat.paused:
        return "paused"
    if heartbeat.status not in ("up", "down"):
        return "pending"
    return "maintenance" if in_maintenance(heartbeat, now) else _OTHERS[heartbeat.status]


def target_state(target: CollectorTarget, now: datetime) -> State:
    """The target's `status`; Paused while disabled or `paused_until` is ahead (the
    engine does not check it then)."""
    if not target.enabled or (target.paused_until is not None and target.paused_until > now):
        return "paused"
    return _OTHERS.get(target.status, "pending")
