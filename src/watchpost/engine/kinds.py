"""The kinds of rows the engine checks: their table, which rows are eligible, their interval."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import ColumnElement, and_, or_

from watchpost.collectors.models import CollectorTarget
from watchpost.monitors.models import Monitor
from watchpost.monitors.types import TYPE_RULES
from watchpost.settings import Settings

MONITOR: Final = "monitor"
TARGET: Final = "collector_target"


def monitor_timeout_s(monitor: Monitor) -> float:
    """request_timeout in seconds: HTTP types store seconds, the others milliseconds."""
    rule = TYPE_RULES.get(monitor.monitor_type)
    if rule is not None and rule.timeout.unit == "milliseconds":
        return monitor.request_timeout / 1000.0
    return float(monitor.request_timeout)


@dataclass(frozen=True)
class Kind:
    name: str
    model: Any  # Monitor | CollectorTarget: the mapped class
    eligible: Callable[[datetime], ColumnElement[bool]]
    """Rows that may be checked at all at `now` (not paused, enabled …), due or not."""
    interval_s: Callable[[Any, Settings], int]
    timeout_s: Callable[[Any, Settings], float]


KINDS: Final[dict[str, Kind]] = {
    MONITOR: Kind(
        name=MONITOR,
        model=Monitor,
        eligible=lambda _now: Monitor.paused.is_(False),
        interval_s=lambda row, _settings: int(row.check_frequency),
        timeout_s=lambda row, _settings: monitor_timeout_s(row),
    ),
    TARGET: Kind(
        name=TARGET,
        model=CollectorTarget,
        eligible=lambda now: and_(
            CollectorTarget.enabled.is_(True),
            or_(CollectorTarget.paused_until.is_(None), CollectorTarget.paused_until <= now),
        ),
        interval_s=lambda _row, settings: settings.target_check_interval,
        timeout_s=lambda _row, settings: settings.target_check_timeout,
    ),
}
