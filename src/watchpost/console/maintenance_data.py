"""The maintenance windows' value and SQL reads for /maintenance-windows (maintenance.py).

`Window` is a window's four values (`maintenance_from`, `maintenance_to`,
`maintenance_timezone`, `maintenance_days`) shared by one or more monitors and heartbeats;
`window_page` groups and pages the team's windows in SQL with the first few objects each
covers and when it is on now or starts next; `covered` finds the ids in exactly one window,
`choices` the monitors and heartbeats offered in the form (pickers.py: found by name or
URL, the chosen ones always), and `window_from_query` the window
a URL or a form's hidden fields name.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final
from urllib.parse import urlencode

from sqlalchemy import String, and_, cast, func, literal, or_, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.pickers import Picked, of_team, pick
from watchpost.errors import NotFound
from watchpost.heartbeats.models import Heartbeat
from watchpost.maintenance_windows import (
    WEEKDAYS,
    in_maintenance,
    maintenance_end,
    maintenance_intervals,
    weekdays_in_order,
)
from watchpost.monitors.models import Monitor

PER_PAGE: Final = 25
SHOWN: Final = 10
"""At most this many covered monitors and heartbeats are named per window in the list."""
DAY_WORDS: Final = dict(
    zip(WEEKDAYS, ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"), strict=True)
)


@dataclass(frozen=True)
class Window:
    """A window's four values (days in week order; none: every day)."""

    maintenance_from: str
    maintenance_to: str
    maintenance_timezone: str
    days: tuple[str, ...]

    @property
    def maintenance_days(self) -> list[str]:
        return list(self.days)

    @property
    def query(self) -> str:
        return urlencode(
            {
                "from": self.maintenance_from,
                "to": self.maintenance_to,
                "tz": self.maintenance_timezone,
                "days": ",".join(self.days),
            }
        )

    @property
    def schedule(self) -> str:
        hours = f"{self.maintenance_from[:5]} to {self.maintenance_to[:5]}"
        if self.maintenance_to <= self.maintenance_from:
            hours += " (next day)"
        days = ", ".join(DAY_WORDS[d] for d in self.days) if self.days else "Every day"
        return f"{days}, {hours} {self.maintenance_timezone}"


@dataclass
class Listed:
    window: Window
    count: int = 0
    covers: list[tuple[str, int, str]] = field(default_factory=list)
    """(kind, id, name) of the first few monitors and heartbeats it covers."""
    now_until: datetime | None = None
    next_start: datetime | None = None


def _days(raw: Any) -> tuple[str, ...]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raw = []
    return tuple(weekdays_in_order([str(d) for d in raw or []]))


def _window_of(row: Any) -> Window:
    return Window(row.w_from, row.w_to, row.w_zone or "UTC", _days(row.w_days))


def _rows(team_id: int) -> Any:
    """Every windowed monitor and heartbeat of the team: kind, id, name and the window."""

    def of(model: Any, kind: str, name: Any) -> Any:
        return select(
            literal(kind).label("kind"),
            model.id.label("id"),
            name.label("name"),
            model.maintenance_from.label("w_from"),
            model.maintenance_to.label("w_to"),
            model.maintenance_timezone.label("w_zone"),
            cast(model.maintenance_days, String).label("w_days"),
        ).where(model.team_id == team_id, model.maintenance_from.is_not(None))

    monitor_name = func.coalesce(Monitor.pronounceable_name, Monitor.url)
    return union_all(
        of(Monitor, "monitor", monitor_name), of(Heartbeat, "heartbeat", Heartbeat.name)
    ).subquery()


async def window_page(
    db: AsyncSession, team_id: int, page: int, now: datetime
) -> tuple[list[Listed], bool]:
    rows = _rows(team_id)
    keys = (rows.c.w_from, rows.c.w_to, rows.c.w_zone, rows.c.w_days)
    grouped = await db.execute(
        select(*keys, func.count().label("n"))
        .group_by(*keys)
        .order_by(*keys)
        .offset((page - 1) * PER_PAGE)
        .limit(PER_PAGE + 1)
    )
    found = list(grouped)
    more = len(found) > PER_PAGE
    listed: dict[Window, Listed] = {}
    raw_keys = []
    for row in found[:PER_PAGE]:
        window = _window_of(row)
        item = listed.setdefault(window, Listed(window))
        item.count += int(row.n)
        raw_keys.append((row.w_from, row.w_to, row.w_zone, row.w_days))
    if raw_keys:
        number = func.row_number().over(partition_by=keys, order_by=(rows.c.name, rows.c.id))
        first = (
            select(rows, number.label("rn"))
            .where(
                or_(*(and_(*(k == v for k, v in zip(keys, key, strict=True))) for key in raw_keys))
            )
            .subquery()
        )
        named = await db.execute(select(first).where(first.c.rn <= SHOWN).order_by(first.c.name))
        for row in named:
            item = listed[_window_of(row)]
            if len(item.covers) < SHOWN:
                item.covers.append((row.kind, row.id, row.name))
    for item in listed.values():
        if in_maintenance(item.window, now):
            item.now_until = maintenance_end(item.window, now)
        upcoming = maintenance_intervals(item.window, now, now + timedelta(days=8))
        starts = [low for low, _ in upcoming if low > now]
        item.next_start = starts[0] if starts else None
    return list(listed.values()), more


def window_from_query(query: Mapping[str, Any], prefix: str = "") -> Window:
    """The window a URL or a form's hidden fields name (a 404 when incomplete)."""
    start = str(query.get(prefix + "from", ""))
    end = str(query.get(prefix + "to", ""))
    zone = str(query.get(prefix + "tz", "")) or "UTC"
    days = [d for d in str(query.get(prefix + "days", "")).split(",") if d]
    if not start or not end or any(d not in WEEKDAYS for d in days):
        raise NotFound("maintenance window", start)
    return Window(start, end, zone, tuple(weekdays_in_order(days)))


async def choices(
    db: AsyncSession,
    team_id: int,
    *,
    find: str = "",
    monitors: Iterable[int] = (),
    heartbeats: Iterable[int] = (),
) -> tuple[Picked, Picked]:
    """The monitors (name or URL containing `find`) and heartbeats offered in the form,
    each the chosen ones and at most pickers.LIMIT more."""
    name = func.coalesce(Monitor.pronounceable_name, Monitor.url)
    searched = (Monitor.pronounceable_name, Monitor.url)
    monitor_rows = of_team(Monitor, team_id, name)
    found_monitors = await pick(
        db, monitor_rows, Monitor.id, name, searched=searched, find=find, chosen=monitors
    )
    heartbeat_rows = of_team(Heartbeat, team_id, Heartbeat.name)
    found_heartbeats = await pick(
        db, heartbeat_rows, Heartbeat.id, Heartbeat.name, find=find, chosen=heartbeats
    )
    return found_monitors, found_heartbeats


async def covered(db: AsyncSession, team_id: int, window: Window) -> tuple[list[int], list[int]]:
    """The ids of the team's monitors and heartbeats in exactly this window."""
    found: dict[str, list[int]] = {"monitor": [], "heartbeat": []}
    rows = _rows(team_id)
    answer = await db.execute(
        select(rows.c.kind, rows.c.id, rows.c.w_days).where(
            rows.c.w_from == window.maintenance_from,
            rows.c.w_to == window.maintenance_to,
            rows.c.w_zone == window.maintenance_timezone,
        )
    )
    for kind, object_id_, days in answer:
        if _days(days) == window.days:
            found[kind].append(int(object_id_))
    return found["monitor"], found["heartbeat"]
