"""The overview's list in SQL: one row per monitor, heartbeat and collector target, with the
state the console shows, filtered, counted, sorted and paged by the database.

Each kind is one SELECT on its own table (by team, so the team_id index bounds it); the
three are joined with UNION ALL and the outer query filters, sorts and pages. Nothing here
reads history beyond the last observation a heartbeat's maintenance needs.

States (the five words the console shows), from the API's `status` of each kind:

- monitor: `status` as the API shows it (status_machine.shown_status: paused and
  maintenance already cover the machine's state); `validating` (a success after a confirmed
  outage, recovery not yet confirmed) and `pending` are **pending**; anything unknown is
  pending too.
- heartbeat: paused → **paused**; `pending` → **pending**; `up` or `down` while its latest
  observation (heartbeats.checking.observe_heartbeats, which applies the maintenance window)
  says `maintenance` and still stands → **maintenance**; else up or down.
- collector target: not enabled (`disabled`) or `paused_until` in the future → **paused**
  (the engine does not check it: engine/checked_rows.py); else `up`, `down`, or pending.

"Since" (when the row entered its state), from what the rows record; None where nothing
records it:

- down: a monitor's `failing_since` (the outage's first failure), a heartbeat's
  `next_due_at` (the deadline it missed), a target's open incident's start;
- up: the end of its latest resolved incident, else (monitors and targets) its creation;
  a pause in between is not recorded anywhere, so it is not seen;
- pending: a validating monitor's `recovering_since`; else its creation if never
  checked (or pinged);
- paused: `paused_at` (monitors and heartbeats);
- maintenance: not recorded (None).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    Select,
    String,
    and_,
    case,
    func,
    literal,
    null,
    or_,
    select,
    union_all,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.sql.elements import KeyedColumnElement

from watchpost.collectors.models import CollectorTarget
from watchpost.heartbeats.checking import OBSERVATION_STANDS_FOR
from watchpost.heartbeats.models import Heartbeat
from watchpost.history.models import LastObservation
from watchpost.incidents.models import Incident
from watchpost.monitors.models import Monitor

Kind = Literal["monitor", "heartbeat", "target"]
KINDS: Final[tuple[Kind, ...]] = ("monitor", "heartbeat", "target")
STATES: Final[tuple[str, ...]] = ("down", "pending", "maintenance", "up", "paused")
"""In the order the "state" sort shows them: what needs a person first."""
SUBJECT_TYPES: Final[dict[str, str]] = {
    "monitor": "monitor",
    "heartbeat": "heartbeat",
    "target": "collector_target",
}
"""A row's kind → its subject_type in the history tables."""
GROUP_KINDS: Final[dict[str, Kind]] = {
    "monitor": "monitor",
    "heartbeat": "heartbeat",
    "collector": "target",
}
"""A group's kind → the kind of row it holds (a target's group is its collector)."""
LIMIT_PER_KIND: Final = 10_000


def _monitor_state() -> ColumnElement[str]:
    status = Monitor.status
    return case(
        (status.in_(("up", "down", "paused", "maintenance")), status),
        else_=literal("pending"),
    )


def _heartbeat_state(last: Any, now: datetime) -> ColumnElement[str]:
    in_maintenance = and_(last.c.state == "maintenance", last.c.at > now - OBSERVATION_STANDS_FOR)
    return case(
        (Heartbeat.paused.is_(True), literal("paused")),
        (Heartbeat.status.not_in(("up", "down")), literal("pending")),
        (in_maintenance, literal("maintenance")),
        else_=Heartbeat.status,
    )


def _target_state(now: datetime) -> ColumnElement[str]:
    t = CollectorTarget
    return case(
        (or_(t.enabled.is_(False), t.status == "disabled"), literal("paused")),
        (and_(t.paused_until.is_not(None), t.paused_until > now), literal("paused")),
        (t.status.in_(("up", "down")), t.status),
        else_=literal("pending"),
    )


def _target_address() -> ColumnElement[str]:
    t = CollectorTarget
    return case(
        (t.port.is_(None), t.host),
        else_=t.host + literal(":") + sql_cast(t.port, String),
    )


def _last_resolved(column: Any, row_id: Any) -> Any:
    """The end of the row's latest resolved incident (max over its index)."""
    return select(func.max(Incident.resolved_at)).where(column == row_id).scalar_subquery()


def _monitor_since() -> ColumnElement[datetime]:
    m = Monitor
    return case(
        (m.status == "down", m.failing_since),
        (m.status == "validating", m.recovering_since),
        (m.status == "paused", m.paused_at),
        (m.status == "up", func.coalesce(_last_resolved(Incident.monitor_id, m.id), m.created_at)),
        (and_(m.status == "pending", m.last_checked_at.is_(None)), m.created_at),
        else_=null(),
    )


def _heartbeat_since(state: ColumnElement[str]) -> ColumnElement[datetime]:
    h = Heartbeat
    return case(
        (state == "down", h.next_due_at),
        (state == "paused", h.paused_at),
        (state == "up", _last_resolved(Incident.heartbeat_id, h.id)),
        (and_(state == "pending", h.last_ping_at.is_(None)), h.created_at),
        else_=null(),
    )


def _target_since(state: ColumnElement[str]) -> ColumnElement[datetime]:
    t = CollectorTarget
    opened = (
        select(func.max(Incident.started_at))
        .where(Incident.collector_target_id == t.id, Incident.resolved_at.is_(None))
        .scalar_subquery()
    )
    resolved = _last_resolved(Incident.collector_target_id, t.id)
    return case(
        (state == "down", opened),
        (state == "up", func.coalesce(resolved, t.created_at)),
        (and_(state == "pending", t.last_ping_at.is_(None)), t.created_at),
        else_=null(),
    )


def _latency(subject_type: str, row_id: Any) -> Any:
    return (
        select(LastObservation.latency_ms)
        .where(LastObservation.subject_type == subject_type, LastObservation.subject_id == row_id)
        .scalar_subquery()
    )


def _heartbeat_lasts() -> Any:
    return (
        select(LastObservation.subject_id, LastObservation.state, LastObservation.at)
        .where(LastObservation.subject_type == "heartbeat")
        .subquery("heartbeat_last")
    )


def _searched(search: str, *columns: ColumnElement[Any]) -> ColumnElement[bool]:
    needle = search.lower()
    return or_(*(func.lower(column).contains(needle, autoescape=True) for column in columns))


@dataclass(frozen=True)
class _Shape:
    """How one kind's table gives the overview's columns."""

    id: Any
    team_id: Any
    group_id: Any
    name: Any
    url: Any
    """Column expressions (or mapped attributes)."""
    state: ColumnElement[str]
    since: ColumnElement[Any]
    source: Any


def _shape(kind: str, now: datetime) -> _Shape:
    if kind == "monitor":
        return _Shape(
            Monitor.id,
            Monitor.team_id,
            Monitor.monitor_group_id,
            func.coalesce(Monitor.pronounceable_name, Monitor.url),
            Monitor.url,
            _monitor_state(),
            _monitor_since(),
            Monitor.__table__,
        )
    if kind == "heartbeat":
        last = _heartbeat_lasts()
        state = _heartbeat_state(last, now)
        return _Shape(
            Heartbeat.id,
            Heartbeat.team_id,
            Heartbeat.heartbeat_group_id,
            Heartbeat.name,
            null(),
            state,
            _heartbeat_since(state),
            Heartbeat.__table__.outerjoin(last, last.c.subject_id == Heartbeat.id),
        )
    address = _target_address()
    state = _target_state(now)
    return _Shape(
        CollectorTarget.id,
        CollectorTarget.team_id,
        CollectorTarget.collector_id,
        CollectorTarget.kind + literal(" target ") + address,
        address,
        state,
        _target_since(state),
        CollectorTarget.__table__,
    )


def branch(
    kind: str,
    *,
    team_id: int,
    now: datetime,
    search: str = "",
    states: frozenset[str] = frozenset(),
    group: tuple[str, int] | None = None,
    since: bool = False,
    latency: bool = False,
    only_ids: Sequence[int] | None = None,
) -> Select[Any] | None:
    """One kind's rows matching the filter, as (kind, id, name, url, state[, since][, latency]);
    None when the group filter names another kind's group."""
    if group is not None and GROUP_KINDS.get(group[0]) != kind:
        return None
    shape = _shape(kind, now)
    columns: list[Any] = [
        literal(kind).label("kind"),
        shape.id.label("id"),
        shape.name.label("name"),
        sql_cast(shape.url, String).label("url"),
        shape.state.label("state"),
    ]
    if since:
        columns.append(shape.since.label("since"))
    if latency:
        columns.append(_latency(SUBJECT_TYPES[kind], shape.id).label("latency"))
    where: list[ColumnElement[bool]] = [shape.team_id == team_id]
    if group is not None:
        where.append(shape.group_id == group[1])
    if search:
        searched = (shape.name,) if kind == "heartbeat" else (shape.name, shape.url)
        where.append(_searched(search, *searched))
    if states:
        where.append(shape.state.in_(sorted(states)))
    if only_ids is not None:
        where.append(shape.id.in_(list(only_ids)))
    return select(*columns).select_from(shape.source).where(*where)


def rows_of(
    *,
    team_id: int,
    now: datetime,
    kinds: frozenset[str],
    search: str,
    states: frozenset[str],
    group: tuple[str, int] | None,
    since: bool = False,
    latency: bool = False,
) -> CompoundSelect[Any] | Select[Any] | None:
    """The matching rows of every kind asked for (all when `kinds` is empty); None when no
    kind can match."""
    branches = [
        found
        for kind in KINDS
        if not kinds or kind in kinds
        if (
            found := branch(
                kind,
                team_id=team_id,
                now=now,
                search=search,
                states=states,
                group=group,
                since=since,
                latency=latency,
            )
        )
        is not None
    ]
    if not branches:
        return None
    return branches[0] if len(branches) == 1 else union_all(*branches)


def state_rank(state: KeyedColumnElement[Any]) -> ColumnElement[int]:
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


def team_counts_query(*, team_id: int, now: datetime) -> Select[Any]:
    """Rows per state of the whole team, whatever the filter."""
    every = rows_of(
        team_id=team_id, now=now, kinds=frozenset(), search="", states=frozenset(), group=None
    )
    assert every is not None
    rows = every.subquery("every_row")
    return select(rows.c.state, func.count()).group_by(rows.c.state)


def ids_in(column: Any, by_kind: dict[str, Sequence[int]]) -> ColumnElement[bool]:
    """subject_type/subject_id pairs of the page's rows, one IN list per kind."""
    return or_(
        *(
            and_(column.subject_type == SUBJECT_TYPES[kind], column.subject_id.in_(list(ids)))
            for kind, ids in by_kind.items()
            if ids
        )
    )
