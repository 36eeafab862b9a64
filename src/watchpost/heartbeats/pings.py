"""What a ping does to its heartbeat. No HTTP in here.

The common case, a success ping of a heartbeat that is up, is one conditional UPDATE by
token, then the ping log's upsert (two statements); `record_successes` applies a batch of
them in one transaction (the ping URL's group commit: db/group_commit.py), one UPDATE per
heartbeat and one upsert for all. Anything that may change the state (pending or down, a
failure, paused, unknown token) takes the heartbeat's row lock and decides under it, so
concurrent pings of one heartbeat open or resolve at most one incident.

Every recorded ping is logged (models.HeartbeatPing: a ring of PING_LOG_SIZE rows per
heartbeat); a paused heartbeat's ignored ping is not.
"""

from __future__ import annotations

import codecs
import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.db.base import UTCDateTime
from watchpost.db.upsert import Upsert
from watchpost.heartbeats.checking import DOWN, UP, deadline_after, due_after
from watchpost.heartbeats.models import Heartbeat, HeartbeatPing
from watchpost.incidents.transitions import AUTOMATIC, Change, apply, open_incident_for, start
from watchpost.maintenance_windows import in_maintenance

OUTPUT_LIMIT = 10 * 1024
"""Bytes of a failure's request body kept as its output; the rest is dropped."""
EXIT_CODE_MAX = 255
PING_LOG_SIZE: Final = 100
"""Pings the log keeps per heartbeat: the newest."""
USER_AGENT_LIMIT: Final = 255
ADDRESS_LIMIT: Final = 64


class Ping(enum.Enum):
    RECORDED = "recorded"
    IGNORED = "ignored"
    """The heartbeat is paused: the ping changes nothing."""
    UNKNOWN = "unknown"
    """No heartbeat has this token."""


@dataclass(frozen=True)
class Failure:
    """A ping reporting that the job failed: via /fail (no exit code) or a non-zero exit code."""

    exit_code: int | None = None
    output: str = ""
    truncated: bool = False

    def cause(self, now: datetime) -> str:
        how = "/fail" if self.exit_code is None else f"exit code {self.exit_code}"
        text = f"The job reported a failure ({how}) at {isoformat_ms(now)}."
        if self.output:
            limit = f", first {OUTPUT_LIMIT} bytes" if self.truncated else ""
            text += f"\n\nOutput{limit}:\n{self.output}"
        return text


@dataclass(frozen=True)
class Received:
    """What the ping log keeps of a request besides its time and outcome."""

    body: str = ""
    truncated: bool = False
    """More than OUTPUT_LIMIT bytes were sent."""
    exit_code: int | None = None
    """The exit code in the URL (0 too); None without one."""
    address: str | None = None
    user_agent: str | None = None


def failure_output(raw: bytes) -> tuple[str, bool]:
    """The first OUTPUT_LIMIT bytes of raw as text, and whether more was sent.

    Invalid UTF-8 becomes U+FFFD, a character cut at the limit is dropped, and NUL (which
    PostgreSQL text cannot hold) becomes U+FFFD too.
    """
    kept = raw[:OUTPUT_LIMIT]
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    text = decoder.decode(kept, final=len(raw) <= OUTPUT_LIMIT)
    return text.replace("\x00", "\ufffd"), len(raw) > OUTPUT_LIMIT


_now = bindparam("ping_at", type_=UTCDateTime())
_heartbeats = cast(Table, Heartbeat.__table__)
# The common case, built once and on the table (Core, no ORM bookkeeping): building the
# statement and the ORM's handling of it cost more than running it.
_SUCCESS_OF_UP = (
    update(_heartbeats)
    .where(
        _heartbeats.c.token == bindparam("ping_token"),
        _heartbeats.c.status == UP,
        _heartbeats.c.paused.is_(False),
        # a period in a zone's wall-clock time is reckoned below, in Python
        _heartbeats.c.server_timezone.is_(None),
    )
    .values(
        last_ping_at=_now,
        next_due_at=due_after(_now),
        ping_count=_heartbeats.c.ping_count + bindparam("pings"),
    )
    .returning(_heartbeats.c.id, _heartbeats.c.ping_count)
)
_LOG: Final = Upsert(
    cast(Table, HeartbeatPing.__table__),
    keys=("heartbeat_id", "slot"),
    update=lambda new: {
        name: getattr(new, name)
        for name in (
            "seq",
            "at",
            "kind",
            "exit_code",
            "body",
            "body_truncated",
            "address",
            "user_agent",
        )
    },
)


def log_row(
    heartbeat_id: int, seq: int, now: datetime, failure: Failure | None, received: Received
) -> dict[str, Any]:
    """The ping log's row for ping number seq (its slot in the heartbeat's ring)."""
    return {
        "heartbeat_id": heartbeat_id,
        "slot": seq % PING_LOG_SIZE,
        "seq": seq,
        "at": now,
        "kind": "success" if failure is None else "fail",
        "exit_code": received.exit_code,
        "body": received.body or None,
        "body_truncated": received.truncated,
        "address": (received.address or "")[:ADDRESS_LIMIT] or None,
        "user_agent": (received.user_agent or "")[:USER_AGENT_LIMIT] or None,
    }


async def _log(session: AsyncSession, rows: dict[str, Any] | list[dict[str, Any]]) -> None:
    """On the session's connection: the ORM's handling of a statement that loads nothing
    cost more than the statement (bench/api_inprocess.py's ping)."""
    connection = await session.connection()
    await connection.execute(_LOG.statement(connection.dialect.name), rows)


@dataclass(frozen=True, slots=True)
class Success:
    """A success ping waiting for its batch."""

    token: str
    now: datetime
    received: Received


async def record_successes(session: AsyncSession, pings: Sequence[Success]) -> list[bool]:
    """The success pings of heartbeats that are up, applied together: one conditional UPDATE
    per heartbeat moving its count by its pings (their log numbers follow in order) and its
    last ping to the newest, then the ping log's rows in one upsert. False for a ping whose
    heartbeat was not up as the common case wants it (record_ping decides those)."""
    by_token: dict[str, list[int]] = {}
    for index, ping in enumerate(pings):
        by_token.setdefault(ping.token, []).append(index)
    done = [False] * len(pings)
    rows: dict[tuple[int, int], dict[str, Any]] = {}
    for token, indexes in by_token.items():
        newest = max(pings[index].now for index in indexes)
        values = {"ping_token": token, "ping_at": newest, "pings": len(indexes)}
        hit = (await session.execute(_SUCCESS_OF_UP, values)).first()
        if hit is None:
            continue
        heartbeat_id, count = hit
        for seq, index in enumerate(indexes, start=count - len(indexes) + 1):
            ping = pings[index]
            row = log_row(heartbeat_id, seq, ping.now, None, ping.received)
            rows[heartbeat_id, row["slot"]] = row  # a ring slot filled twice keeps the newer
            done[index] = True
    if rows:
        await _log(session, list(rows.values()))
    return done


async def record_ping(
    session: AsyncSession,
    *,
    token: str,
    now: datetime,
    failure: Failure | None = None,
    received: Received | None = None,
) -> Ping:
    """Apply a ping: success moves the heartbeat up, a failure down; both set the deadline.
    A recorded ping goes into the heartbeat's ping log with what `received` says of it."""
    received = received or Received()
    if failure is None:
        values = {"ping_token": token, "ping_at": now, "pings": 1}
        hit = (await session.execute(_SUCCESS_OF_UP, values)).first()
        if hit is not None:
            await _log(session, log_row(hit[0], hit[1], now, None, received))
            return Ping.RECORDED
    heartbeat = await session.scalar(
        select(Heartbeat).where(Heartbeat.token == token).with_for_update()
    )
    if heartbeat is None:
        return Ping.UNKNOWN
    if heartbeat.paused:
        return Ping.IGNORED
    heartbeat.ping_count += 1
    await _log(session, log_row(heartbeat.id, heartbeat.ping_count, now, failure, received))
    heartbeat.last_ping_at = now
    heartbeat.next_due_at = deadline_after(heartbeat, now)
    was = heartbeat.status
    if failure is None:
        heartbeat.status = UP
        if was == DOWN:
            await _resolve(session, heartbeat=heartbeat, now=now)
    elif in_maintenance(heartbeat, now):
        # no incidents in a maintenance window: there a failure only counts as a ping
        if was != DOWN:
            heartbeat.status = UP
    else:
        heartbeat.status = DOWN
        await _open(session, heartbeat=heartbeat, failure=failure, now=now)
    await session.flush()
    return Ping.RECORDED


async def _resolve(session: AsyncSession, *, heartbeat: Heartbeat, now: datetime) -> None:
    """Resolve the open incident, unless a person reported it: that one a person closes."""
    incident = await open_incident_for(session, heartbeat_id=heartbeat.id)
    if incident is not None and not incident.manual:
        text = f"Ping received at {isoformat_ms(now)}; the heartbeat is up again."
        await apply(session, incident, Change.RESOLVED, at=now, by=AUTOMATIC, text=text)


async def _open(
    session: AsyncSession, *, heartbeat: Heartbeat, failure: Failure, now: datetime
) -> None:
    """A new incident for the failure, unless one is already open."""
    if await open_incident_for(session, heartbeat_id=heartbeat.id) is None:
        await start(
            session,
            team_id=heartbeat.team_id,
            name=heartbeat.name,
            cause=failure.cause(now),
            at=now,
            heartbeat_id=heartbeat.id,
        )


async def ping_log(session: AsyncSession, *, heartbeat_id: int) -> list[HeartbeatPing]:
    """The heartbeat's logged pings, newest first (at most PING_LOG_SIZE: its ring, read
    along the primary key)."""
    rows = await session.scalars(
        select(HeartbeatPing)
        .where(HeartbeatPing.heartbeat_id == heartbeat_id)
        .order_by(HeartbeatPing.seq.desc())
    )
    return list(rows)
