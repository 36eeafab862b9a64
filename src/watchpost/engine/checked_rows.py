"""The kinds of rows the engine checks: their table, which rows are eligible, their interval."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, cast

from sqlalchemy import ColumnElement, Table, and_, or_

from watchpost.collectors.models import CollectorTarget
from watchpost.monitors.models import Monitor
from watchpost.monitors.types import REQUEST_FIELDS, TYPE_RULES
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
    table: Table
    eligible: Callable[[Any], ColumnElement[bool]]
    """Rows that may be checked at all at `now` (not paused, enabled …), due or not; `now`
    is a datetime or a bound parameter, the columns are the table's (Core, no ORM)."""
    probe_columns: tuple[str, ...]
    """The columns a claim reads (besides id and next_check_at): what the probe input,
    the check's interval and timeout and the maintenance window are made of."""
    interval_s: Callable[[Any, Settings], int]
    timeout_s: Callable[[Any, Settings], float]


_monitors = cast(Table, Monitor.__table__)
_targets = cast(Table, CollectorTarget.__table__)

KINDS: Final[dict[str, Kind]] = {
    MONITOR: Kind(
        name=MONITOR,
        model=Monitor,
        table=_monitors,
        # A monitor only agents check (its locations leave the server out) is not due here.
        eligible=lambda _now: and_(
            _monitors.c.paused.is_(False), _monitors.c.checked_here.is_(True)
        ),
        probe_columns=(
            "check_frequency",
            "monitor_type",
            "url",
            "request_timeout",
            *REQUEST_FIELDS,
            "port_list",
            "auth_password_encrypted",
            "ssl_expiration",
            "domain_expiration",
            "playwright_script",
            "environment_variables",
            "maintenance_from",
            "maintenance_to",
            "maintenance_timezone",
            "maintenance_days",
        ),
        interval_s=lambda row, _settings: int(row.check_frequency),
        timeout_s=lambda row, _settings: monitor_timeout_s(row),
    ),
    TARGET: Kind(
        name=TARGET,
        model=CollectorTarget,
        table=_targets,
        eligible=lambda now: and_(
            _targets.c.enabled.is_(True),
            _targets.c.location_id.is_(None),  # else its location's agents check it
            or_(_targets.c.paused_until.is_(None), _targets.c.paused_until <= now),
        ),
        probe_columns=(
            "kind",
            "host",
            "port",
            "service",
            "listen_ip",
            "endpoint",
            "scheme",
            "username",
            "password_encrypted",
            "api_key_encrypted",
            "ssl_mode",
            "tls",
        ),
        interval_s=lambda _row, settings: settings.target_check_interval,
        timeout_s=lambda _row, settings: settings.target_check_timeout,
    ),
}
