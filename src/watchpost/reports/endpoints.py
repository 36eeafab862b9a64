"""Routes: a monitor's availability (`/sla`) and response times, a heartbeat's availability."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response
from fastapi.types import DecoratedCallable
from pydantic import Field
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.heartbeats import service as heartbeats
from watchpost.heartbeats.models import Heartbeat
from watchpost.http.crud import Finder, Routes
from watchpost.http.deps import Caller, Context, ReadDb
from watchpost.http.envelope import single
from watchpost.http.errors import error_responses
from watchpost.listing import resource
from watchpost.monitors import lists
from watchpost.monitors import service as monitors
from watchpost.monitors.models import Monitor
from watchpost.reports import service
from watchpost.teams.service import Principal
from watchpost.validation import ClosedModel

router = APIRouter(tags=["availability"])

RANGE = (
    "`from` and `to` are dates (`2026-01-26`: a whole UTC day) or ISO datetimes; by default "
    "since the object was created, up to now. A bound that cannot be read, a start in the "
    "future or an end before the start is a 400. Counted from the object's incidents: "
    "downtime is the time they were open within the period (an open one up to now); "
    "`availability` is a percentage of the period the object existed in; durations are "
    "seconds."
)


class Summary(ClosedModel):
    availability: float = Field(ge=0, le=100, description="A percentage, to 4 decimals.")
    total_downtime: int
    number_of_incidents: int
    longest_incident: int
    average_incident: int


class ResponseTime(ClosedModel):
    at: str
    response_time: float


class Region(ClosedModel):
    region: str = Field(description="The location's region (us, eu, as, au).")
    location: str = Field(description="The location's name.")
    response_times: list[ResponseTime]


class ResponseTimes(ClosedModel):
    regions: list[Region]


SUMMARY_TYPES = {"monitor": "monitor_sla", "heartbeat": "heartbeat_availability"}
_monitor = Finder(monitors.get_monitor, lists.MONITOR, "monitor_id")
_heartbeat = Finder(heartbeats.get_heartbeat, heartbeats.HEARTBEAT, "heartbeat_id")


@dataclass
class Span:
    """The `from` and `to` of a request."""

    from_: Annotated[str | None, Query(alias="from", max_length=40)] = None
    to: Annotated[str | None, Query(max_length=40)] = None


READ_RANGE_ERRORS = error_responses(400, 401, 404)

summary_routes = Routes(router, Summary)


async def _summary(
    db: AsyncSession,
    caller: Principal,
    ctx: AppContext,
    find: Finder[Monitor] | Finder[Heartbeat],
    raw_id: str,
    span: Span,
) -> Response:
    """The availability of the caller's monitor or heartbeat (`find`) over the span asked."""
    found = await find(db, caller, raw_id)
    now = ctx.clock.now()
    within = service.period(span.from_, span.to, since=found.created_at, now=now)
    summary = await service.summary(
        db, column=find.key, subject_id=found.id, within=within, now=now
    )
    return single(resource(SUMMARY_TYPES[find.resource_type], found.id, summary))


def _summary_route(
    path: str, find: Finder[Monitor] | Finder[Heartbeat]
) -> Callable[[DecoratedCallable], DecoratedCallable]:
    """GET `path`: the availability of what `find` finds, typed by SUMMARY_TYPES."""
    kind = find.resource_type
    return router.get(
        path,
        responses={200: {"model": summary_routes.one}, **READ_RANGE_ERRORS},
        summary=f"A {kind}'s availability over a period",
        description=f"Type `{SUMMARY_TYPES[kind]}`. {RANGE}",
    )


@_summary_route("/api/v2/monitors/{monitor_id}/sla", _monitor)
async def monitor_sla(
    monitor_id: str, caller: Caller, ctx: Context, db: ReadDb, span: Annotated[Span, Depends()]
) -> Response:
    return await _summary(db, caller, ctx, _monitor, monitor_id, span)


@_summary_route("/api/v2/heartbeats/{heartbeat_id}/availability", _heartbeat)
async def heartbeat_availability(
    heartbeat_id: str, caller: Caller, ctx: Context, db: ReadDb, span: Annotated[Span, Depends()]
) -> Response:
    return await _summary(db, caller, ctx, _heartbeat, heartbeat_id, span)


times_routes = Routes(router, ResponseTimes)


@times_routes.get(
    "/api/v2/monitors/{monitor_id}/response-times",
    summary="A monitor's response times of the last 24 hours",
    description=(
        "Type `monitor_response_times`: `regions`, each with `response_times` oldest first "
        "(`at`, `response_time` in seconds): one entry per location that checked the monitor, "
        "`region` its region and `location` its name (none before the first check); at most "
        f"{service.MAX_RESPONSE_TIMES:,} results, the newest."
    ),
)
async def monitor_response_times(
    monitor_id: str, caller: Caller, ctx: Context, db: ReadDb
) -> Response:
    monitor = await _monitor(db, caller, monitor_id)
    regions = await service.response_times(db, monitor_id=monitor.id, now=ctx.clock.now())
    return single(resource("monitor_response_times", monitor.id, {"regions": regions}))


# What routes.py serves: this module's routers, each listed flat in the app.
routers = (router,)
