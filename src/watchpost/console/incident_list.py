"""The incidents list of the console: its filters as they come in the URL, and one page of
the team's incidents, newest first.

The filters are the API's (incidents/schemas.parse_filters: the same errors for the same
values) and their conditions are the incidents domain's own (incidents/lists.INCIDENTS):
one COUNT and one page of rows from the (team_id, id) index, never the whole list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final
from urllib.parse import urlencode

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.query_numbers import number
from watchpost.errors import InvalidRequest
from watchpost.heartbeats.models import Heartbeat
from watchpost.incidents.lists import INCIDENTS
from watchpost.incidents.models import Incident
from watchpost.incidents.schemas import IncidentFilters, parse_filters
from watchpost.listing import MAX_PER_PAGE, last_page
from watchpost.monitors.models import Monitor

STATUSES: Final = {
    "all": "All",
    "open": "Open",
    "acknowledged": "Acknowledged",
    "resolved": "Resolved",
}
"""The status filter's values and labels. `open` is every incident not resolved (ongoing or
acknowledged); `acknowledged` the open ones someone is on."""
_STATUS_CONDITIONS: Final = {
    "all": (),
    "open": ("open",),
    "acknowledged": ("open", "acknowledged"),
    "resolved": ("resolved",),
}
PERIODS: Final = {"24h": timedelta(hours=24), "7d": timedelta(days=7), "30d": timedelta(days=30)}
PERIOD_LABELS: Final = {
    "": "Any time",
    "24h": "Last 24 hours",
    "7d": "Last 7 days",
    "30d": "Last 30 days",
}
PAGE_SIZES: Final = (25, 50, 100, 250)
DEFAULT_PAGE_SIZE: Final = 25
STATE_WORDS: Final = {"started": "Ongoing", "acknowledged": "Acknowledged", "resolved": "Resolved"}
"""An incident's status as the console says it."""
STATE_CLASSES: Final = {"started": "down", "acknowledged": "pending", "resolved": "up"}
"""The colour of each status: the same badges as monitors' states (red means down)."""


@dataclass
class ListQuery:
    """The list's filters and page as the URL gives them (kept as typed, to refill the
    form), and what is wrong with them (field → message)."""

    status: str = "all"
    monitor_id: str = ""
    heartbeat_id: str = ""
    period: str = ""
    from_: str = ""
    to: str = ""
    page: int = 1
    per_page: int = DEFAULT_PAGE_SIZE
    errors: dict[str, str] = field(default_factory=dict)
    filters: IncidentFilters = field(default_factory=IncidentFilters)

    @property
    def filtered(self) -> bool:
        """Whether a filter beyond the status is in use (or wrong): the form shows open."""
        chosen = (self.monitor_id, self.heartbeat_id, self.period, self.from_, self.to)
        return any(chosen) or bool(self.errors) or self.per_page != DEFAULT_PAGE_SIZE

    def url(self, **changes: Any) -> str:
        """/incidents with these filters (and changes), empty ones left out."""
        values = {
            "status": self.status,
            "monitor_id": self.monitor_id,
            "heartbeat_id": self.heartbeat_id,
            "period": self.period,
            "from": self.from_,
            "to": self.to,
            "per_page": str(self.per_page),
            "page": str(self.page),
            **{name.rstrip("_"): str(value) for name, value in changes.items()},
        }
        defaults = {"status": "all", "per_page": str(DEFAULT_PAGE_SIZE), "page": "1"}
        kept = [(k, v) for k, v in values.items() if v and defaults.get(k) != v]
        return "/incidents" + (f"?{urlencode(kept)}" if kept else "")


def read_query(params: Mapping[str, str], now: datetime) -> ListQuery:
    """The list's query from the URL: bad filters are reported (the API's messages), bad
    page numbers fall back to the first page."""
    query = ListQuery(
        status=params.get("status", "all") if params.get("status") in STATUSES else "all",
        monitor_id=params.get("monitor_id", "").strip(),
        heartbeat_id=params.get("heartbeat_id", "").strip(),
        period=params.get("period", "") if params.get("period") in PERIODS else "",
        from_=params.get("from", "").strip(),
        to=params.get("to", "").strip(),
        page=number(params.get("page"), 1, 10**9),
        per_page=number(params.get("per_page"), DEFAULT_PAGE_SIZE, MAX_PER_PAGE),
    )
    try:
        query.filters = parse_filters(
            monitor_id=query.monitor_id,
            heartbeat_id=query.heartbeat_id,
            resolved=None,
            acknowledged=None,
            from_=None if query.period else query.from_,
            to=query.to,
        )
    except InvalidRequest as exc:
        query.errors = {name or "status": message for name, message in exc.problems}
        query.filters = IncidentFilters()
    if query.period and not query.errors:
        lower = now - PERIODS[query.period]
        upper = query.filters.started_before
        if upper is not None and upper <= lower:
            query.errors = {"to": "to must not be before the period's start"}
            query.filters = IncidentFilters()
        else:
            query.filters = IncidentFilters(
                monitor_id=query.filters.monitor_id,
                heartbeat_id=query.filters.heartbeat_id,
                started_from=lower,
                started_before=upper,
            )
    return query


@dataclass(frozen=True)
class Row:
    """One incident of the list."""

    id: int
    name: str
    cause: str
    status: str
    started_at: datetime
    acknowledged_at: datetime | None
    acknowledged_by: str | None
    resolved_at: datetime | None
    resolved_by: str | None
    about: tuple[str, str, str | None] | None
    """What it is about: (kind word, object name, its console page or None)."""

    @property
    def state_word(self) -> str:
        return STATE_WORDS[self.status]

    @property
    def state_class(self) -> str:
        return STATE_CLASSES[self.status]

    def duration(self, now: datetime) -> timedelta:
        return (self.resolved_at or now) - self.started_at


@dataclass(frozen=True)
class ListPage:
    rows: list[Row]
    total: int
    pages: int


_COLUMNS: Final = (
    Incident.id,
    Incident.name,
    Incident.cause,
    Incident.started_at,
    Incident.acknowledged_at,
    Incident.acknowledged_by,
    Incident.resolved_at,
    Incident.resolved_by,
    Incident.monitor_id,
    Incident.heartbeat_id,
    Incident.collector_target_id,
)


def status_of(acknowledged_at: datetime | None, resolved_at: datetime | None) -> str:
    """Incident.status's rule, for plain rows."""
    if resolved_at is not None:
        return "resolved"
    return "acknowledged" if acknowledged_at is not None else "started"


async def subject_names(
    db: AsyncSession, monitor_ids: set[int], heartbeat_ids: set[int]
) -> tuple[dict[int, str], dict[int, str]]:
    """The names of the monitors and heartbeats incidents are about (one query each)."""
    monitors: dict[int, str] = {}
    heartbeats: dict[int, str] = {}
    if monitor_ids:
        found = await db.execute(
            select(Monitor.id, Monitor.pronounceable_name, Monitor.url).where(
                Monitor.id.in_(monitor_ids)
            )
        )
        monitors = {id_: name or url for id_, name, url in found}
    if heartbeat_ids:
        found = await db.execute(
            select(Heartbeat.id, Heartbeat.name).where(Heartbeat.id.in_(heartbeat_ids))
        )
        heartbeats = {id_: name for id_, name in found}
    return monitors, heartbeats


def about(
    monitor_id: int | None,
    heartbeat_id: int | None,
    collector_target_id: int | None,
    names: tuple[dict[int, str], dict[int, str]],
) -> tuple[str, str, str | None] | None:
    if monitor_id is not None:
        return ("Monitor", names[0].get(monitor_id, f"#{monitor_id}"), f"/monitors/{monitor_id}")
    if heartbeat_id is not None:
        name = names[1].get(heartbeat_id, f"#{heartbeat_id}")
        return ("Heartbeat", name, f"/heartbeats/{heartbeat_id}")
    if collector_target_id is not None:
        return ("Collector target", f"#{collector_target_id}", None)
    return None


async def list_page(db: AsyncSession, *, team_id: int, query: ListQuery) -> ListPage:
    """One page of the team's incidents matching the query, newest first."""
    filters = query.filters
    given: dict[str, Any] = {
        name: value
        for name, value in (
            ("monitor_id", filters.monitor_id),
            ("heartbeat_id", filters.heartbeat_id),
            ("started_from", filters.started_from),
            ("started_before", filters.started_before),
        )
        if value is not None
    }
    used = [*given, *_STATUS_CONDITIONS[query.status]]
    conditions = [INCIDENTS.conditions[name] for name in used]
    where = (Incident.team_id == team_id, *conditions)
    total = (await db.scalar(select(func.count()).select_from(Incident).where(*where), given)) or 0
    pages = last_page(total, query.per_page)
    stmt = (
        select(*_COLUMNS)
        .where(*where)
        .order_by(Incident.id.desc())
        .offset((query.page - 1) * query.per_page)
        .limit(query.per_page)
    )
    found = (await db.execute(stmt, given)).all()
    names = await subject_names(
        db,
        {row.monitor_id for row in found if row.monitor_id is not None},
        {row.heartbeat_id for row in found if row.heartbeat_id is not None},
    )
    rows = [
        Row(
            id=row.id,
            name=row.name,
            cause=row.cause,
            status=status_of(row.acknowledged_at, row.resolved_at),
            started_at=row.started_at,
            acknowledged_at=row.acknowledged_at,
            acknowledged_by=row.acknowledged_by,
            resolved_at=row.resolved_at,
            resolved_by=row.resolved_by,
            about=about(row.monitor_id, row.heartbeat_id, row.collector_target_id, names),
        )
        for row in found
    ]
    return ListPage(rows, total, pages)
