"""How each kind of row gives the overview's columns in SQL: its name, URL, state and since.

Expressions over one table each (overview_query.py assembles them); the values they compare
with are bound parameters (`now`, `observed_after`, `pattern`). Nothing here reads history
beyond the last observation a heartbeat's maintenance needs.

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

Names: a monitor's `pronounceable_name`, else its URL (as its incidents are named); a
heartbeat's name; a target as its incidents name it ("redis target db.internal:6379"),
its address being its URL.

"Since" (when the row entered its state), from what the rows record; None where nothing
records it:

- down: a monitor's `failing_since` (the outage's first failure); a heartbeat's or a
  target's open incident's start (a heartbeat goes down by a failure ping or by its
  missed deadline, and both open one), else a heartbeat's missed `next_due_at`;
- up: the end of its latest resolved incident, else (monitors and targets) its creation;
  a pause in between is not recorded anywhere, so it is not seen;
- pending: a validating monitor's `recovering_since`; else its creation if never
  checked (or pinged);
- paused: `paused_at` (monitors and heartbeats);
- maintenance: not recorded (None).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

from sqlalchemy import (
    ColumnElement,
    String,
    and_,
    bindparam,
    case,
    func,
    literal,
    null,
    or_,
    select,
)
from sqlalchemy import cast as sql_cast

from watchpost.collectors.models import CollectorTarget
from watchpost.console import operations
from watchpost.db.base import UTCDateTime
from watchpost.heartbeats.models import Heartbeat
from watchpost.history.models import LastObservation
from watchpost.incidents.models import Incident
from watchpost.monitors.models import Monitor

Kind = Literal["monitor", "heartbeat", "target"]
KINDS: Final[tuple[Kind, ...]] = ("monitor", "heartbeat", "target")
STATES: Final[tuple[str, ...]] = ("down", "pending", "maintenance", "up", "paused")
"""In the order the "state" sort shows them: what needs a person first."""
SUBJECT_TYPES: Final[dict[str, str]] = {
    kind: name for kind, name in operations.SUBJECT_TYPES.items()
}
"""A row's kind → its subject_type in the history tables: operations.py's table, keyed by str."""
GROUP_KINDS: Final[dict[str, Kind]] = {
    "monitor": "monitor",
    "heartbeat": "heartbeat",
    "collector": "target",
}
"""A group's kind → the kind of row it holds (a target's group is its collector)."""
LIMIT_PER_KIND: Final = 10_000


def _at(name: str) -> Any:
    return bindparam(name, type_=UTCDateTime())


def _monitor_state() -> ColumnElement[str]:
    status = Monitor.status
    return case(
        (status.in_(("up", "down", "paused", "maintenance")), status),
        else_=literal("pending"),
    )


def _heartbeat_state(last: Any) -> ColumnElement[str]:
    """`observed_after`: now - OBSERVATION_STANDS_FOR, as every heartbeat observation
    stands that long."""
    in_maintenance = and_(last.c.state == "maintenance", last.c.at > _at("observed_after"))
    return case(
        (Heartbeat.paused.is_(True), literal("paused")),
        (Heartbeat.status.not_in(("up", "down")), literal("pending")),
        (in_maintenance, literal("maintenance")),
        else_=Heartbeat.status,
    )


def _target_state() -> ColumnElement[str]:
    t = CollectorTarget
    return case(
        (or_(t.enabled.is_(False), t.status == "disabled"), literal("paused")),
        (and_(t.paused_until.is_not(None), t.paused_until > _at("now")), literal("paused")),
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


def _open_since(column: Any, row_id: Any) -> Any:
    """The start of the row's open incident (one at most; over its index)."""
    return (
        select(func.max(Incident.started_at))
        .where(column == row_id, Incident.resolved_at.is_(None))
        .scalar_subquery()
    )


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
        (state == "down", func.coalesce(_open_since(Incident.heartbeat_id, h.id), h.next_due_at)),
        (state == "paused", h.paused_at),
        (state == "up", _last_resolved(Incident.heartbeat_id, h.id)),
        (and_(state == "pending", h.last_ping_at.is_(None)), h.created_at),
        else_=null(),
    )


def _target_since(state: ColumnElement[str]) -> ColumnElement[datetime]:
    t = CollectorTarget
    resolved = _last_resolved(Incident.collector_target_id, t.id)
    return case(
        (state == "down", _open_since(Incident.collector_target_id, t.id)),
        (state == "up", func.coalesce(resolved, t.created_at)),
        (and_(state == "pending", t.last_ping_at.is_(None)), t.created_at),
        else_=null(),
    )


def latency_of(subject_type: str, row_id: Any) -> Any:
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


def searched(*columns: ColumnElement[Any]) -> ColumnElement[bool]:
    """Any of the columns contains the bound `pattern` (search_pattern), in any case."""
    return or_(*(func.lower(column).like(bindparam("pattern"), escape="/") for column in columns))


def search_pattern(search: str) -> str:
    """A LIKE pattern finding `search` anywhere: its wildcards are plain characters."""
    escaped = search.lower().replace("/", "//").replace("%", "/%").replace("_", "/_")
    return f"%{escaped}%"


@dataclass(frozen=True)
class Shape:
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
    degraded: Any = None
    """Whether some locations fail, not enough for the rule (a monitor's degraded_since)."""


def shape_of(kind: str) -> Shape:
    if kind == "monitor":
        return Shape(
            Monitor.id,
            Monitor.team_id,
            Monitor.monitor_group_id,
            func.coalesce(Monitor.pronounceable_name, Monitor.url),
            Monitor.url,
            _monitor_state(),
            _monitor_since(),
            Monitor.__table__,
            Monitor.degraded_since.is_not(None),
        )
    if kind == "heartbeat":
        last = _heartbeat_lasts()
        state = _heartbeat_state(last)
        return Shape(
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
    state = _target_state()
    return Shape(
        CollectorTarget.id,
        CollectorTarget.team_id,
        CollectorTarget.collector_id,
        CollectorTarget.kind + literal(" target ") + address,
        address,
        state,
        _target_since(state),
        CollectorTarget.__table__,
    )
