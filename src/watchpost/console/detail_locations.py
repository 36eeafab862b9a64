"""What a monitor's page says of where it is checked from: each location that checks it with
its latest result (its `location_checks` row) and its status, and the confirmation rule in
words.

One query for all of it: the locations (a short table, the operator's and the teams' own)
outer-joined to the monitor's rows along their unique (monitor_id, location_id) index,
keeping the monitor's locations and the server's own (the one line of a monitor only the
server checks).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.locations.models import Location, LocationCheck
from watchpost.monitors.models import Monitor
from watchpost.probing import service


@dataclass(frozen=True)
class CheckedFrom:
    """One location checking the monitor, and its latest result there."""

    name: str
    region: str
    server: bool
    status: str
    """online, offline or unknown (locations/service.status)."""
    checked_at: datetime | None
    ok: bool | None
    error: str | None
    latency_ms: float | None

    @property
    def counted(self) -> bool:
        """Whether its result weighs in the verdict (monitors/confirmation.py): online."""
        return self.status == "online"


def rule_words(monitor: Monitor) -> str:
    """The monitor's confirmation rule as a sentence."""
    rule = monitor.confirmation_rule
    if rule == "any":
        return "Down when any location fails"
    if rule == "all":
        return "Down when every location fails"
    if rule == "at_least":
        count = monitor.confirmation_locations or 1
        return f"Down when at least {count} location{'s' if count != 1 else ''} fail"
    return "Down when most locations fail"


async def checked_from(db: AsyncSession, monitor: Monitor) -> list[CheckedFrom]:
    """The locations checking the monitor, the server's first: for one only the server
    checks (not `located`), the server's alone."""
    rows = await db.execute(
        select(
            Location,
            LocationCheck.id,
            LocationCheck.last_checked_at,
            LocationCheck.last_ok,
            LocationCheck.last_error,
            LocationCheck.last_latency_ms,
        )
        .select_from(Location)
        .outerjoin(
            LocationCheck,
            and_(LocationCheck.monitor_id == monitor.id, LocationCheck.location_id == Location.id),
        )
        .where(or_(LocationCheck.id.is_not(None), Location.is_server))
        .order_by(Location.is_server.desc(), Location.name)
    )
    found: list[CheckedFrom] = []
    for location, row_id, checked_at, ok, error, latency in rows.tuples():
        if monitor.located and row_id is None:
            continue  # the server does not check this one
        if not monitor.located and not location.is_server:
            continue  # rows of a placement being changed
        found.append(
            CheckedFrom(
                name=location.name,
                region=location.region,
                server=location.is_server,
                status=service.status(location),
                checked_at=checked_at,
                ok=ok,
                error=error,
                latency_ms=latency,
            )
        )
    return found
