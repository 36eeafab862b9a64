"""What the overview page shows: counts by state, then a page of monitors, heartbeats and
collector targets with their state, last response time, 24-hour sparkline and 30-day
availability.

The list is filtered, counted, sorted and paged by the database (overview_query.py; how
each kind's name, state and "since" are read is in overview_rules.py); the rows shown, and
only they, are then read in full with their history (overview_history.py: rollups and last
observations, one query each for the whole page).
The filter lives in the URL: `parse_filter` reads it and never fails, `to_query` writes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Final
from urllib.parse import urlencode

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from watchpost.console.overview_history import Row as Row
from watchpost.console.overview_history import read_details
from watchpost.console.overview_query import (
    Shape,
    count_query,
    ids_query,
    page_query,
    parameters,
    team_counts_query,
)
from watchpost.console.overview_rules import GROUP_KINDS, KINDS, LIMIT_PER_KIND, STATES

SORTS: Final[tuple[str, ...]] = ("state", "name", "-name", "since", "response_time")
PER_PAGES: Final[tuple[int, ...]] = (25, 50, 100, 250)
DEFAULT_PER_PAGE: Final = 50
SEARCH_MAX: Final = 200
"""Longer searches are cut: nothing a person types is longer, and LIKE costs grow with it."""


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
    connection = await db.connection()
    values = parameters(
        team_id=team_id, now=now, search=flt.search, states=flt.states, group_id=flt.group_id
    )
    counts = dict.fromkeys(STATES, 0)
    for state, number in await connection.execute(team_counts_query(), values):
        counts[state] = counts.get(state, 0) + int(number)
    shape = shape_of_filter(flt)
    paging = page_query(shape, flt.sort)
    if paging is None:
        return Overview(counts=counts, per_page=flt.per_page)
    values |= {"limit": flt.per_page, "offset": (flt.page - 1) * flt.per_page}
    found = (await connection.execute(paging, values)).all()
    if found:
        page = flt.page
        total = sum(counts.values()) if shape.unfiltered else int(found[0].total)
    else:  # nothing matches, or the page is past the last: count, and show the last
        total = await _total(connection, shape, values, counts)
        page = min(flt.page, max(1, -(-total // flt.per_page)))
        if total and page != flt.page:
            values["offset"] = (page - 1) * flt.per_page
            found = (await connection.execute(paging, values)).all()
    pages = max(1, -(-total // flt.per_page))
    shown = [(row.kind, row.id) for row in found]
    details = await read_details(connection, team_id=team_id, shown=shown, now=now)
    return Overview(
        counts=counts,
        rows=[details.row(kind, row_id) for kind, row_id in shown],
        total=total,
        page=page,
        per_page=flt.per_page,
        pages=pages,
    )


async def _total(
    connection: AsyncConnection, shape: Shape, values: dict[str, Any], counts: dict[str, int]
) -> int:
    if shape.unfiltered:
        return sum(counts.values())
    counting = count_query(shape)
    assert counting is not None
    return int((await connection.execute(counting, values)).scalar_one())


def shape_of_filter(flt: OverviewFilter) -> Shape:
    return Shape(
        kinds=tuple(kind for kind in KINDS if not flt.kinds or kind in flt.kinds),
        search=bool(flt.search),
        states=bool(flt.states),
        group=flt.group_kind if flt.group_id is not None else None,
    )


async def all_matching_ids(
    db: AsyncSession, *, team_id: int, flt: OverviewFilter, now: datetime
) -> dict[str, list[int]]:
    """kind → ids of every row matching the filter (sort and page aside), at most
    LIMIT_PER_KIND of each kind, for "select all matching" bulk actions. `now` is the time
    the states are read at (a target paused until then, a heartbeat's maintenance)."""
    connection = await db.connection()
    values = parameters(
        team_id=team_id, now=now, search=flt.search, states=flt.states, group_id=flt.group_id
    )
    values["limit"] = LIMIT_PER_KIND
    shape = shape_of_filter(flt)
    found: dict[str, list[int]] = {}
    for kind in shape.kinds:
        stmt = ids_query(kind, shape)
        if stmt is not None:
            found[kind] = list(await connection.scalars(stmt, values))
    return found
