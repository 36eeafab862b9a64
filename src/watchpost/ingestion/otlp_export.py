"""OTLP/HTTP exports parsed and stored (ingestion/otlp_endpoints.py's routes answer): imported
at the first export, with OpenTelemetry's protobuf modules."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

from fastapi import Request

from watchpost.ingestion.endpoints import parsed, receiving
from watchpost.ingestion.state import Ingestion, SourceInfo
from watchpost.logs import otlp, otlp_metrics
from watchpost.logs.batch import EventBatch
from watchpost.logs.events import MetricPoint

PAUSED: Final = "ingesting is paused for this source: the records were dropped"
EXPIRED: Final = "records older than the source's logs_retention were dropped"
EXPIRED_METRICS: Final = "data points older than the source's metrics_retention were dropped"


async def export_logs(
    request: Request, ing: Ingestion, source: SourceInfo, kind: str
) -> tuple[int, str]:
    """Stores the request's records; (records not kept, why)."""
    async with receiving(request, ing) as (data, received):

        def parse(data: bytes) -> list[Any]:
            message = otlp.decode_request(data, kind)
            return otlp.build_events(
                message, source_id=source.id, team_id=source.team_id, received=received
            )

        events = await parsed(data, parse, unreadable=400)
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
    async with receiving(request, ing) as (data, received):
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

        samples, points, dropped = await parsed(data, parse, unreadable=400)
        if source.paused:
            return points, PAUSED.replace("records", "data points")
        await ing.store_metrics(source, samples)
        return dropped, EXPIRED_METRICS if dropped else ""


EXPORTS: Final = {
    "logs": (export_logs, otlp.success),
    "metrics": (export_metrics, otlp_metrics.success),
}
"""What each OTLP route runs: the export that stores the body, and its success answer."""
