"""What the overview page shows: counts by state, then a page of monitors, heartbeats and
collector targets with their state, last response time, 24-hour sparkline and 30-day
availability.

The list is filtered, counted, sorted and paged by the database (overview_query.py, which
also says how each kind's state and "since" are read); the history of only the rows shown
is then read from the rollups and last observations, one query each for the whole page.
The filter lives in the URL: `parse_filter` reads it and never fails, `to_query` writes it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Final
from urllib.parse import urlencode

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.overview_query import (
    GROUP_KINDS,
    KINDS,
    LIMIT_PER_KIND,
    STATES,
    SUBJECT_TYPES,
    branch,
    ids_in,
    ordering,
    rows_of,
    team_counts_query,
)
from watchpost.history.models import CheckRollup, LastObservation
from watchpost.history.periods import bucket_start

SORTS: Final[tuple[str, ...]] = ("state", "name", "-name", "since", "response_time")
PER_PAGES: Final[tuple[int, ...]] = (25, 50, 100, 250)
DEFAULT_PER_PAGE: Final = 50
SEARCH_MAX: Final = 200
"""Longer searches are cut: nothing a person types is longer, and LIKE costs grow with it."""
SPARK_HOURS: Final = 24
AVAILABILITY_DAYS: Final = 30
_SUBJECT_KINDS: Final = {subject: kind for kind, subject in SUBJECT_TYPES.items()}


@dataclass(frozen=True)
class OverviewFilter:
    """Which rows the overview lists, and in what order (all of it is in the URL)."""

    search: str = ""
    """Part of a name or URL, any case."""
    states: frozenset[str] = frozenset()
    """Any of STATES; empty: every state."""
    kinds: frozenset[str] = frozenset()
    """Any of "monitor", "heartbeat", "target"; empty: every kind."""
    group_id: int | None = None
    group_kind: str | None = None
    """"monitor" (a monitor group), "heartbeat" (a heartbeat group) or "collector" (a
    collector's targets); set together with group_id."""
    sort: str = "state"
    page: int = 1
    per_page: int = DEFAULT_PER_PAGE

    @property
    def group(self) -> tuple[str, int] | None:
        if self.group_id is None or self.group_kind is None:
            return None
        return self.group_kind, self.group_id


def _values(query: Mapping[str, str | list[str]], name: str) -> list[str]:
    value = query.get(name)
    if value is None:
        return []
    return [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)]


def _first(query: Mapping[str, str | list[str]], name: str) -> str:
    values = _values(query, name)
    return values[0].strip() if values else ""


def _number(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 9 else None


def _group(text: str) -> tuple[str | None, int | None]:
    """`monitor:12`, `heartbeat:3` or `collector:4`."""
    kind, _, number = text.partition(":")
    group_id = _number(number)
    if kind not in GROUP_KINDS or group_id is None:
        return None, None
    return kind, group_id


def parse_filter(query: Mapping[str, str | list[str]]) -> OverviewFilter:
    """The filter of a URL's query parameters (q, state and kind repeatable, group, sort,
    page, per_page); what cannot be read is left at its default, so any URL shows a page."""
    states = frozenset(s for v in _values(query, "state") if (s := v.strip().lower()) in STATES)
    kinds = frozenset(k for v in _values(query, "kind") if (k := v.strip().lower()) in KINDS)
    group_kind, group_id = _group(_first(query, "group"))
    sort = _first(query, "sort")
    per_page = _number(_first(query, "per_page"))
    page = _number(_first(query, "page"))
    printable = "".join(ch if ch.isprintable() else " " for ch in _first(query, "q"))
    search = " ".join(printable.split())[:SEARCH_MAX].strip()
    return OverviewFilter(
        search=search,
        states=states,
        kinds=kinds,
        group_id=group_id,
        group_kind=group_kind,
        sort=sort if sort in SORTS else "state",
        page=page if page is not None and page >= 1 else 1,
        per_page=per_page if per_page in PER_PAGES else DEFAULT_PER_PAGE,
    )


def to_query(flt: OverviewFilter, **changes: Any) -> str:
    """The query string of the filter (defaults left out), e.g. for a link to its next page:
    `to_query(f, page=f.page + 1)`. parse_filter(to_query(f)) == f."""
    flt = replace(flt, **changes) if changes else flt
    params: list[tuple[str, str]] = []
    if flt.search:
        params.append(("q", flt.search))
    params += [("state", state) for state in STATES if state in flt.states]
    params += [("kind", kind) for kind in KINDS if kind in flt.kinds]
    if flt.group is not None:
        params.append(("group", f"{flt.group[0]}:{flt.group[1]}"))
    if flt.sort != "state":
        params.append(("sort", flt.sort))
    if flt.page != 1:
        params.append(("page", str(flt.page)))
    if flt.per_page != DEFAULT_PER_PAGE:
        params.append(("per_page", str(flt.per_page)))
    return urlencode(params)


@dataclass(frozen=True)
class Row:
    """One line of the overview."""

    kind: str
    """"monitor", "heartbeat" or "target"."""
    id: int
    name: str
    url: str | None
    """A monitor's URL, a target's address; None for heartbeats."""
    state: str
    since: datetime | None
    response_ms: float | None
    """The latest check's response time."""
    spark: tuple[float | None, ...]
    """Mean response time of each of the last 24 UTC hours (the current one last); None
    where no check measured one."""
    spark_down: tuple[bool, ...]
    """Whether any check of that hour failed."""
    availability_30d: float | None
    """Percent of the observed time outside maintenance that was up, over the last 30 UTC
    days (today so far included); None when nothing was observed."""


@dataclass
class Overview:
    counts: dict[str, int]
    """Rows per state over the whole team, whatever the filter."""
    rows: list[Row] = field(default_factory=list)
    total: int = 0
    """Rows matching the filter."""
    page: int = 1
    per_page: int = DEFAULT_PER_PAGE
    pages: int = 1


async def overview(
    db: AsyncSession, *, team_id: int, flt: OverviewFilter, now: datetime
) -> Overview:
    """The counts and one page of the team's rows matching the filter (a page past the last
    shows the last)."""
    counts = dict.fromkeys(STATES, 0)
    for state, number in await db.execute(team_counts_query(team_id=team_id, now=now)):
        counts[state] = counts.get(state, 0) + int(number)
    matching = rows_of(
        team_id=team_id,
        now=now,
        kinds=flt.kinds,
        search=flt.search,
        states=flt.states,
        group=flt.group,
        since=flt.sort == "since",
        latency=flt.sort == "response_time",
    )
    if matching is None:
        return Overview(counts=counts, per_page=flt.per_page)
    rows = matching.subquery("matching")
    total = int(await db.scalar(select(func.count()).select_from(rows)) or 0)
    pages = max(1, -(-total // flt.per_page))
    page = min(flt.page, pages)
    shown = (
        await db.execute(
            select(rows.c.kind, rows.c.id, rows.c.name, rows.c.url, rows.c.state)
            .order_by(*ordering(flt.sort, rows.c))
            .limit(flt.per_page)
            .offset((page - 1) * flt.per_page)
        )
    ).all()
    by_kind: dict[str, list[int]] = defaultdict(list)
    for row in shown:
        by_kind[row.kind].append(row.id)
    details = await _details(db, team_id=team_id, by_kind=by_kind, now=now)
    return Overview(
        counts=counts,
        rows=[
            details.row(kind, row_id, name, url, state) for kind, row_id, name, url, state in shown
        ],
        total=total,
        page=page,
        per_page=flt.per_page,
        pages=pages,
    )


@dataclass
class _Details:
    """What the page's rows need beyond their table: read for those rows only."""

    since: dict[tuple[str, int], datetime | None] = field(default_factory=dict)
    latency: dict[tuple[str, int], float | None] = field(default_factory=dict)
    spark: dict[tuple[str, int], dict[datetime, tuple[float | None, bool]]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    availability: dict[tuple[str, int], float | None] = field(default_factory=dict)
    hours: tuple[datetime, ...] = ()

    def row(self, kind: str, row_id: int, name: str, url: str | None, state: str) -> Row:
        key = (kind, row_id)
        hours = self.spark.get(key, {})
        spark = tuple(hours.get(hour, (None, False)) for hour in self.hours)
        return Row(
            kind=kind,
            id=row_id,
            name=name,
            url=url,
            state=state,
            since=self.since.get(key),
            response_ms=self.latency.get(key),
            spark=tuple(mean for mean, _ in spark),
            spark_down=tuple(down for _, down in spark),
            availability_30d=self.availability.get(key),
        )


async def _details(
    db: AsyncSession, *, team_id: int, by_kind: Mapping[str, Sequence[int]], now: datetime
) -> _Details:
    current = bucket_start(now, "hour")
    first_hour = current - timedelta(hours=SPARK_HOURS - 1)
    found = _Details(hours=tuple(first_hour + timedelta(hours=n) for n in range(SPARK_HOURS)))
    if not by_kind:
        return found
    for kind, ids in by_kind.items():
        stmt = branch(kind, team_id=team_id, now=now, since=True, only_ids=ids)
        assert stmt is not None
        for row in await db.execute(stmt):
            found.since[(kind, row.id)] = row.since
    lasts = await db.execute(
        select(LastObservation.subject_type, LastObservation.subject_id, LastObservation.latency_ms)
        .where(LastObservation.team_id == team_id)
        .where(ids_in(LastObservation, dict(by_kind)))
    )
    for subject_type, subject_id, latency in lasts:
        found.latency[(_SUBJECT_KINDS[subject_type], subject_id)] = latency
    r = CheckRollup
    hourly = await db.execute(
        select(
            r.subject_type, r.subject_id, r.period_start, r.failures, r.latency_sum, r.latency_count
        )
        .where(ids_in(r, dict(by_kind)))
        .where(r.granularity == "hour", r.period_start >= first_hour, r.period_start <= current)
        .where(r.team_id == team_id)
    )
    for subject_type, subject_id, start, failures, latency_sum, latency_count in hourly:
        mean = latency_sum / latency_count if latency_count else None
        found.spark[(_SUBJECT_KINDS[subject_type], subject_id)][start] = (mean, failures > 0)
    first_day = bucket_start(now, "day") - timedelta(days=AVAILABILITY_DAYS - 1)
    daily = await db.execute(
        select(r.subject_type, r.subject_id, func.sum(r.up_s), func.sum(r.down_s))
        .where(ids_in(r, dict(by_kind)))
        .where(r.granularity == "day", r.period_start >= first_day, r.period_start <= now)
        .where(r.team_id == team_id)
        .group_by(r.subject_type, r.subject_id)
    )
    for subject_type, subject_id, up_s, down_s in daily:
        counted = float(up_s or 0) + float(down_s or 0)
        found.availability[(_SUBJECT_KINDS[subject_type], subject_id)] = (
            round(100 * float(up_s or 0) / counted, 4) if counted > 0 else None
        )
    return found


async def all_matching_ids(
    db: AsyncSession, *, team_id: int, flt: OverviewFilter, now: datetime
) -> dict[str, list[int]]:
    """kind → ids of every row matching the filter (sort and page aside), at most
    LIMIT_PER_KIND of each kind, for "select all matching" bulk actions. `now` is the time
    the states are read at (a target paused until then, a heartbeat's maintenance)."""
    found: dict[str, list[int]] = {}
    for kind in KINDS:
        if flt.kinds and kind not in flt.kinds:
            continue
        stmt = branch(
            kind,
            team_id=team_id,
            now=now,
            search=flt.search,
            states=flt.states,
            group=flt.group,
        )
        if stmt is None:
            continue
        matching = stmt.subquery("matching")
        ids = await db.scalars(select(matching.c.id).order_by(matching.c.id).limit(LIMIT_PER_KIND))
        found[kind] = list(ids)
    return found
