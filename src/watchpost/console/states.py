"""An object's state in the console's five words, from what the API shows as `status`.

The console says Up, Down, Paused, Pending or Maintenance for every kind of object; the
domains keep a few more statuses, mapped here once so every page says the same word.
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
    # Recovering after an outage: its incident is still open until recovery is confirmed,
    # so the console keeps saying Down (red means down, and this one still is).
    "validating": "down",
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
    """The heartbeat's `status`; Maintenance while its window is open unless it is down
    (a failure before the window keeps its incident open through it)."""
    if heartbeat.paused:
        return "paused"
    state = _OTHERS.get(heartbeat.status, "pending")
    if state != "down" and in_maintenance(heartbeat, now):
        return "maintenance"
    return state


def target_state(target: CollectorTarget, now: datetime) -> State:
    """The target's `status`; Paused while disabled or `paused_until` is ahead."""
    if target.paused_until is not None and target.paused_until > now:
        return "paused"
    return _OTHERS.get(target.status, "pending")
