"""The overview's list in SQL: filtered, counted, sorted and paged by the database.

Each kind is one SELECT on its own table (by team, so the team_id index bounds it; the
columns come from overview_rules.py); the kinds asked for are joined with UNION ALL and the
outer query counts, sorts and pages. Each statement selects only what it needs (the page
query the sort keys and ids; the rows' names, URLs and "since" are read for the page's ids
alone), and is built once per shape of filter: its values are bound parameters.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import (
    ColumnElement,
    Integer,
    Select,
    String,
    Subquery,
    and_,
    bindparam,
    case,
    false,
    func,
    literal,
    or_,
    select,
    union_all,
)
from sqlalchemy import cast as sql_cast

from watchpost.console.overview_rules import (
    GROUP_KINDS,
    KINDS,
    STATES,
    SUBJECT_TYPES,
    latency_of,
    search_pattern,
    searched,
    shape_of,
)
from watchpost.heartbeats.checking import OBSERVATION_STANDS_FOR

ROW_COLUMNS: Final = ("name", "url", "state", "since", "latency", "degraded")
"""What the page shows of each row beyond its kind and id."""
SORT_COLUMNS: Final[dict[str, tuple[str, ...]]] = {
    "state": ("state", "name"),
    "name": ("name",),
    "-name": ("name",),
    "since": ("since", "name"),
    "response_time": ("latency", "name"),
}


@functools.cache
def branch(
    kind: str,
    *,
    output: tuple[str, ...] = (),
    search: bool = False,
    states: bool = False,
    group: str | None = None,
    only_ids: bool = False,
) -> Select[Any] | None:
    """One kind's rows matching the filter, as kind, id and the `output` columns (any of
    name, url, state, since, latency); None when the group filter names another kind's
    group."""
    if group is not None and GROUP_KINDS.get(group) != kind:
        return None
    shape = shape_of(kind)
    columns: list[Any] = [literal(kind).label("kind"), shape.id.label("id")]
    for name in output:
        if name == "url":
            columns.append(sql_cast(shape.url, String).label(name))
        elif name == "latency":
            columns.append(latency_of(SUBJECT_TYPES[kind], shape.id).label(name))
        elif name == "degraded" and shape.degraded is None:
            columns.append(false().label(name))
        else:
            columns.append(getattr(shape, name).label(name))
    where: list[ColumnElement[bool]] = [shape.team_id == bindparam("team_id")]
    if group is not None:
        where.append(shape.group_id == bindparam("group_id"))
    if search:
        where.append(
            searched(shape.name) if kind == "heartbeat" else searched(shape.name, shape.url)
        )
    if states:
        where.append(shape.state.in_(bindparam("states", expanding=True)))
    if only_ids:
        where.append(shape.id.in_(bindparam("ids", expanding=True)))
    return select(*columns).select_from(shape.source).where(*where)


@dataclass(frozen=True)
class Shape:
    """What a filter asks of the database, its values aside: the key of the statements
    built for it."""

    kinds: tuple[str, ...] = KINDS
    search: bool = False
    states: bool = False
    group: str | None = None
    """The group's kind."""

    @property
    def unfiltered(self) -> bool:
        return self.kinds == KINDS and not (self.search or self.states or self.group)


@functools.cache
def rows_of(shape: Shape, output: tuple[str, ...] = ()) -> Subquery | None:
    """The matching rows of the shape's kinds; None when no kind can match."""
    branches = [
        found
        for kind in shape.kinds
        if (
            found := branch(
                kind,
                output=output,
                search=shape.search,
                states=shape.states,
                group=shape.group,
            )
        )
        is not None
    ]
    if not branches:
        return None
    rows = branches[0] if len(branches) == 1 else union_all(*branches)
    return rows.subquery("matching")


def state_rank(state: Any) -> ColumnElement[int]:
    return case({name: rank for rank, name in enumerate(STATES)}, value=state, else_=len(STATES))


def ordering(sort: str, c: Any) -> list[ColumnElement[Any]]:
    """ORDER BY terms of a sort over the union's columns; ties by name, kind and id, so
    pages never overlap."""
    by_name = [func.lower(c.name), c.kind, c.id]
    if sort == "name":
        return by_name
    if sort == "-name":
        return [func.lower(c.name).desc(), c.kind.desc(), c.id.desc()]
    if sort == "since":  # the latest change first; unknown last
        return [c.since.is_(None), c.since.desc(), *by_name]
    if sort == "response_time":  # the slowest first; never measured last
        return [c.latency.is_(None), c.latency.desc(), *by_name]
    return [state_rank(c.state), *by_name]


@functools.cache
def count_query(shape: Shape) -> Select[Any] | None:
    rows = rows_of(shape)
    return None if rows is None else select(func.count()).select_from(rows)


@functools.cache
def page_query(shape: Shape, sort: str) -> Select[Any] | None:
    """The kind and id of a page (bound: limit, offset) of the matching rows, in order; when
    filtered, each row also carries the number of matching rows (a window count: measured
    cheaper than a second pass over them, and dearer than none for the unfiltered list)."""
    rows = rows_of(shape, SORT_COLUMNS.get(sort, SORT_COLUMNS["state"]))
    if rows is None:
        return None
    columns = [rows.c.kind, rows.c.id]
    if not shape.unfiltered:  # the whole team's total is the sum of its counts by state
        columns.append(func.count().over().label("total"))
    return (
        select(*columns)
        .order_by(*ordering(sort, rows.c))
        .limit(bindparam("limit", type_=Integer))
        .offset(bindparam("offset", type_=Integer))
    )


@functools.cache
def team_counts_query() -> Select[Any]:
    """Rows per state of the whole team, whatever the filter."""
    rows = rows_of(Shape(), ("state",))
    assert rows is not None
    return select(rows.c.state, func.count()).group_by(rows.c.state)


@functools.cache
def ids_query(kind: str, shape: Shape) -> Select[Any] | None:
    """The ids of one kind's matching rows, in id order (bound: limit)."""
    stmt = branch(kind, search=shape.search, states=shape.states, group=shape.group)
    if stmt is None:
        return None
    rows = stmt.subquery("matching")
    return select(rows.c.id).order_by(rows.c.id).limit(bindparam("limit", type_=Integer))


def rows_query(kind: str) -> Select[Any]:
    """Name, URL, state, since, last response time and whether degraded of one kind's rows
    named by id (bound: ids)."""
    stmt = branch(kind, output=ROW_COLUMNS, only_ids=True)
    assert stmt is not None
    return stmt


def parameters(
    *,
    team_id: int,
    now: datetime,
    search: str = "",
    states: frozenset[str] = frozenset(),
    group_id: int | None = None,
) -> dict[str, Any]:
    """The values the statements of this module bind."""
    return {
        "team_id": team_id,
        "now": now,
        "observed_after": now - OBSERVATION_STANDS_FOR,
        "pattern": search_pattern(search),
        "states": sorted(states),
        "group_id": group_id,
    }


def ids_in(model: Any, kinds: Sequence[str]) -> ColumnElement[bool]:
    """The page's rows of each kind (bound: ids_<kind>), one IN list per kind."""
    return or_(
        *(
            and_(
                model.subject_type == SUBJECT_TYPES[kind],
                model.subject_id.in_(bindparam(f"ids_{kind}", expanding=True)),
            )
            for kind in kinds
        )
    )
