"""OTLP/HTTP exports parsed and stored (ingestion/otlp_endpoints.py's routes answer): imported
at the first export, with OpenTelemetry's protobuf modules."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Any, Final, TypeVar

from fastapi import Request

from watchpost.ingestion.endpoints import OFF_LOOP_BYTES, read_body
from watchpost.ingestion.state import Ingestion, Refused, SourceInfo
from watchpost.logs import otlp, otlp_metrics
from watchpost.logs.batch import EventBatch
from watchpost.logs.events import MetricPoint
from watchpost.logs.parsing import Unparseable

PAUSED: Final = "ingesting is paused for this source: the records were dropped"
EXPIRED: Final = "records older than the source's logs_retention were dropped"
EXPIRED_METRICS: Final = "data points older than the source's metrics_retention were dropped"

T = TypeVar("T")

logs_success = otlp.success
metrics_success = otlp_metrics.success


@asynccontextmanager
async def _received(request: Request, ing: Ingestion) -> AsyncIterator[tuple[bytes, datetime]]:
    """The request's body and the time of its receipt, counted against ingestion's memory and
    holding one of its slots until the block ends."""
    with ing.reading_account() as grow:
        data = await read_body(request, grow)
        async with ing.slots:
            yield data, ing.now()


async def _parsed(data: bytes, parse: Callable[[bytes], T]) -> T:
    """parse(data), in a thread when the body is big; a body it cannot read is refused (400)."""
    try:
        big = len(data) > OFF_LOOP_BYTES
        return await asyncio.to_thread(parse, data) if big else parse(data)
    except Unparseable as exc:
        raise Refused(400, str(exc)) from None


async def export_logs(
    request: Request, ing: Ingestion, source: SourceInfo, kind: str
) -> tuple[int, str]:
    """Stores the request's records; (records not kept, why)."""
    async with _received(request, ing) as (data, received):

        def parse(data: bytes) -> list[Any]:
            message = otlp.decode_request(data, kind)
            return otlp.build_events(
                message, source_id=source.id, team_id=source.team_id, received=received
            )

        events = await _parsed(data, parse)
        if source.paused:
            return len(events), PAUSED
        batch = ing.fresh(source, EventBatch.of(events), received)
        await ing.store_events(source, batch)
        dropped = len(events) - len(batch)
        return dropped, EXPIRED if dropped else ""


async def export_metrics(
    request: Request, ing: Ingestion, source: SourceInfo, kind: str
) -> tuple[int, str]:
    """Stores the request's samples; (data points not kept, why)."""
    async with _received(request, ing) as (data, received):
        oldest = None if source.paused else received - timedelta(days=source.metrics_retention)

        def parse(data: bytes) -> tuple[list[MetricPoint], int, int]:
            message = otlp_metrics.decode_request(data, kind)
            return otlp_metrics.build_points(
                message,
                source_id=source.id,
                team_id=source.team_id,
                received=received,
                oldest=oldest,
            )

        samples, points, dropped = await _parsed(data, parse)
        if source.paused:
            return points, PAUSED.replace("records", "data points")
        await ing.store_metrics(source, samples)
        return dropped, EXPIRED_METRICS if dropped else ""
