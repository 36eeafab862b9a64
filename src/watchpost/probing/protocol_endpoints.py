"""The probe agents' protocol, /api/probe/v1/…: a probe token, nothing else, signs in.

- `hello`: the agent says what it is; the answer names its location and how to pace itself.
- `claims`: up to `limit` of the location's due checks, leased to the agent (`owner`, a
  random id the agent picks at start). Each carries its probe input, credentials included:
  only a location that checks a monitor ever receives them. Checks inside their maintenance
  window are not sent (the server records the skip itself).
- `results`: finished checks, each named by its claim `token` (`kind.id.due`) and stamped
  with its age when sent; the check ran at receipt minus that age (no agent clock is
  trusted). A result is applied only while its row still carries that claim (owner and due
  time): a result sent twice, or for a check moved on meanwhile, is discarded, so a batch
  resent after a dropped connection never counts twice.
- `bye`: the agent stops; its leases are released for the location's other agents.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Select, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost import times
from watchpost.collectors.models import CollectorTarget
from watchpost.context import AppContext
from watchpost.engine import checks
from watchpost.engine.checked_rows import KINDS, MONITOR, TARGET
from watchpost.engine.claims import Claim
from watchpost.engine.located import LOCATED
from watchpost.engine.located_claims import claim_located, next_due_at, release_all
from watchpost.engine.schedule import GROUPED_S
from watchpost.engine.writer import write_outcomes
from watchpost.errors import Unauthorized
from watchpost.http.body import JsonObject
from watchpost.http.deps import Context, WriteDb
from watchpost.http.errors import error_responses
from watchpost.http.openapi import request_body
from watchpost.locations import offline, tokens
from watchpost.locations.models import Location, LocationCheck
from watchpost.probes.base import ProbeResult
from watchpost.problems import parse

router = APIRouter(prefix="/api/probe/v1", tags=["probe agents"])
routers = (router,)
BEARER = HTTPBearer(
    scheme_name="probeToken",
    description="A probe token (`watchpost probe-token create`): `Authorization: Bearer "
    "wpp_…`. Not an API token.",
    auto_error=False,
)
RESPONSES: Final = error_responses(401, 413, 422)

POLL_S: Final = 5.0
"""Longest an idle agent waits before asking for checks again."""
LEASE_MARGIN: Final = timedelta(seconds=30)
"""A claimed check is the agent's for its timeout and this: the guard around a check, and
time to report it. A dead agent's checks go to the location's other agents after that."""
MAX_AGE: Final = timedelta(days=1)
SKEW: Final = timedelta(minutes=1)
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_US: Final = timedelta(microseconds=1)

Owner = Annotated[str, Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]


async def bearer_token(
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)],
) -> str:
    if bearer is None:
        raise Unauthorized()
    return bearer.credentials


Bearer = Annotated[str, Depends(bearer_token)]


async def signed_in(
    db: AsyncSession, raw: str, now: datetime, agent: str | None = None
) -> Location:
    """The location of the probe token (401 for anything else); its agent has spoken."""
    location = await tokens.authenticate(db, raw, now)
    if location is None:
        raise Unauthorized()
    await offline.seen(db, location, now=now, agent=agent)
    return location


class Hello(BaseModel):
    model_config = ConfigDict(extra="forbid")
    agent: str = Field(max_length=255, description="Host name and version, for people.")


class ClaimsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    owner: Owner
    limit: int = Field(default=100, ge=0, le=1000)


class ResultIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str = Field(max_length=100)
    ok: bool
    latency_ms: float = Field(ge=0, le=86_400_000)
    error: str | None = Field(default=None, max_length=4000)
    details: dict[Annotated[str, Field(max_length=64)], Annotated[str, Field(max_length=1000)]] = (
        Field(default_factory=dict, max_length=32)
    )
    metrics: dict[Annotated[str, Field(max_length=64)], float] = Field(
        default_factory=dict, max_length=64, description="A collector target's readings."
    )
    age_ms: int = Field(
        ge=0, le=7 * 86_400_000, description="How long before sending the check finished."
    )
    finished_at: str | None = Field(
        default=None,
        max_length=40,
        description="When it finished, by the agent's clock, ISO 8601 (see stamped()).",
    )


class ResultsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    owner: Owner
    results: list[ResultIn] = Field(max_length=1000)


class Bye(BaseModel):
    model_config = ConfigDict(extra="forbid")
    owner: Owner


def stamped(result: ResultIn, *, received: datetime) -> datetime:
    """When a reported check finished: receipt minus its age, which no agent clock skews
    but which counts the request's own time in transit (long when the request waited for a
    server starting up); the agent's own stamp when it is earlier by at most SKEW (a clock
    that far off is not trusted). Never more than MAX_AGE ago."""
    by_age = received - timedelta(milliseconds=result.age_ms)
    own = _moment(result.finished_at)
    if own is not None and by_age - SKEW <= own <= by_age:
        by_age = own
    return max(by_age, received - MAX_AGE)


def _moment(text: str | None) -> datetime | None:
    """An ISO 8601 time with its offset, in UTC (None: absent, unreadable, without an offset
    or outside the years 1970 to 2200)."""
    try:
        return times.read_time(text, needs_offset=True) if text else None
    except times.Unreadable:
        return None


def claim_token(claim: Claim) -> str:
    return f"{claim.kind}.{claim.id}.{(claim.due - _EPOCH) // _US}"


def _parsed(token: str) -> tuple[str, int, datetime] | None:
    kind, _, rest = token.partition(".")
    raw_id, _, raw_due = rest.partition(".")
    if kind not in _OWN or not raw_id.isdigit() or not raw_due.isdigit() or len(raw_due) > 18:
        return None
    return kind, int(raw_id), _EPOCH + int(raw_due) * _US


_OWN: Final[dict[str, Select[Any]]] = {
    LOCATED: select(LocationCheck.id, LocationCheck.monitor_id).where(
        LocationCheck.id.in_(bindparam("own_ids", expanding=True)),
        LocationCheck.location_id == bindparam("own_location"),
    ),
    TARGET: select(CollectorTarget.id).where(
        CollectorTarget.id.in_(bindparam("own_ids", expanding=True)),
        CollectorTarget.location_id == bindparam("own_location"),
    ),
}
"""The rows of a kind that belong to the agent's location, among the ids it reports."""


def _doc(summary: str, model: type[BaseModel]) -> dict[str, Any]:
    """A protocol route's OpenAPI: its summary, errors and JSON body."""
    return {"summary": summary, "responses": RESPONSES, "openapi_extra": request_body(model)}


@asynccontextmanager
async def _signed_in(
    db: AsyncSession, raw: str, ctx: AppContext, agent: str | None = None
) -> AsyncIterator[Location]:
    """The token's location, inside the request's one write transaction."""
    async with db.begin():
        yield await signed_in(db, raw, ctx.clock.now(), agent)


def _agent_name(location: Location) -> dict[str, object]:
    return {"location": location.name, "region": location.region, "poll_s": POLL_S}


@router.post("/hello", **_doc("An agent starts", Hello))
async def hello(sent: JsonObject, raw: Bearer, ctx: Context, db: WriteDb) -> dict[str, object]:
    body = parse(Hello, sent)
    async with _signed_in(db, raw, ctx, body.agent) as location:
        return _agent_name(location)


@router.post("/claims", **_doc("Lease the location's due checks", ClaimsIn))
async def claims(sent: JsonObject, raw: Bearer, ctx: Context, db: WriteDb) -> dict[str, object]:
    body = parse(ClaimsIn, sent)
    async with _signed_in(db, raw, ctx) as location:
        return await _claims(db, ctx, location, body, ctx.clock.now())


async def _claims(
    db: AsyncSession, ctx: AppContext, location: Location, body: ClaimsIn, now: datetime
) -> dict[str, object]:
    def timeout_s(kind: str, row: Any) -> float:
        return KINDS[MONITOR if kind == LOCATED else kind].timeout_s(row, ctx.settings)

    found = await claim_located(
        db,
        location_id=location.id,
        owner=body.owner,
        now=now,
        limit=body.limit,
        lease=lambda kind, row: timedelta(seconds=timeout_s(kind, row)) + LEASE_MARGIN,
    )
    sent: list[dict[str, object]] = []
    skipped: list[checks.Outcome] = []
    for claim in found:
        timeout = timeout_s(claim.kind, claim.row)
        job = checks.prepare(claim, box=ctx.box, timeout=timeout, now=now)
        if job.input is None:
            skipped.append(
                checks.Outcome(
                    claim, finished_at=now, result=None, maintenance_until=job.maintenance_until
                )
            )
            continue
        sent.append(
            {
                "token": claim_token(claim),
                "kind": MONITOR if claim.kind == LOCATED else claim.kind,
                "timeout": timeout,
                "input": asdict(job.input),
            }
        )
    if skipped:
        await write_outcomes(db, skipped, settings=ctx.settings)
    due = await next_due_at(db, location_id=location.id, now=now)
    # Past the next due time by GROUPED_S, as an engine not claiming ahead waits: the checks
    # due close together are claimed at once (an agent runs what it gets at once).
    wait = POLL_S if due is None else min(POLL_S, max(0.0, (due - now).total_seconds()) + GROUPED_S)
    return {"checks": sent, "next_in_s": wait}


@router.post("/results", **_doc("Report finished checks", ResultsIn))
async def results(sent: JsonObject, raw: Bearer, ctx: Context, db: WriteDb) -> dict[str, int]:
    body = parse(ResultsIn, sent)
    async with _signed_in(db, raw, ctx) as location:
        return await _results(db, ctx, location, body, ctx.clock.now())


async def _results(
    db: AsyncSession, ctx: AppContext, location: Location, body: ResultsIn, now: datetime
) -> dict[str, int]:
    wanted = {r.token: _parsed(r.token) for r in body.results}
    # Only the location's own rows: a token naming another location's check is discarded.
    rows_of: dict[str, dict[int, Any]] = {}
    for kind, statement in _OWN.items():
        ids = sorted({p[1] for p in wanted.values() if p is not None and p[0] == kind})
        found = await db.execute(statement, {"own_ids": ids, "own_location": location.id})
        rows_of[kind] = {row.id: row for row in found} if ids else {}
    outcomes: list[checks.Outcome] = []
    for item in body.results:
        parsed = wanted[item.token]
        if parsed is None or parsed[1] not in rows_of[parsed[0]]:
            continue
        kind, check_id, due = parsed
        finished = stamped(item, received=now)
        claim = Claim(
            kind=kind,
            id=check_id,
            due=due,
            owner=body.owner,
            lease_expires_at=now,
            row=rows_of[kind][check_id],
        )
        result = ProbeResult(
            ok=item.ok,
            latency_ms=item.latency_ms,
            error=item.error,
            details=item.details,
            metrics=item.metrics,
        )
        outcomes.append(checks.Outcome(claim, finished_at=finished, result=result))
    report = await write_outcomes(db, outcomes, settings=ctx.settings)
    discarded = report.discarded + len(body.results) - len(outcomes)
    return {"applied": report.applied, "discarded": discarded}


@router.post("/bye", **_doc("An agent stops", Bye))
async def bye(sent: JsonObject, raw: Bearer, ctx: Context, db: WriteDb) -> dict[str, int]:
    body = parse(Bye, sent)
    async with _signed_in(db, raw, ctx) as location:
        return {"released": await release_all(db, location_id=location.id, owner=body.owner)}
