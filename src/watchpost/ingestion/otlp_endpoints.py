"""`POST /v1/logs` and `POST /v1/metrics`: OpenTelemetry logs and metrics over OTLP/HTTP,
protobuf or JSON, optionally gzip, with the source token as `Authorization: Bearer <source
token>`. Metrics answer as logs do (data points for records; metrics_retention).

Answers as the OTLP specification says: 200 with an ExportLogsServiceResponse in the
request's encoding (its `partial_success` counts the records not kept: older than the
source's retention, or all of them while the source's ingesting is paused); 400 for a body
that is not a request message, 401/403 for a missing/unknown token, 413 past 20 MiB
decoded, 415 for another content type or encoding (none of them retried by clients); 429
with Retry-After past a rate limit or the source's daily quota (retried). Error bodies are a
google.rpc.Status in the request's encoding.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import Response

from watchpost.ingestion.endpoints import OFF_LOOP_BYTES, read_body
from watchpost.ingestion.state import SOURCE_TOKEN, Ingestion, Refused, SourceInfo, ingestion_for
from watchpost.logs import otlp, otlp_metrics
from watchpost.logs.batch import EventBatch
from watchpost.logs.events import MetricPoint
from watchpost.logs.parsing import Unparseable

router = APIRouter(tags=["logs ingestion"], dependencies=[SOURCE_TOKEN])

PAUSED: Final = "ingesting is paused for this source: the records were dropped"
EXPIRED: Final = "records older than the source's logs_retention were dropped"
EXPIRED_METRICS: Final = "data points older than the source's metrics_retention were dropped"


def _describe(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {
            otlp.PROTOBUF: {"schema": {"type": "string", "format": "binary"}},
            otlp.JSON: {"schema": {"type": "object"}},
        },
    }


RESPONSES: dict[int | str, dict[str, Any]] = {
    200: _describe("Export…ServiceResponse (partial_success counts what was not kept)"),
    400: _describe("Not an ExportLogsServiceRequest (google.rpc.Status)"),
    401: _describe("No bearer token (google.rpc.Status)"),
    403: _describe("No source has this token (google.rpc.Status)"),
    413: _describe("Over 20 MiB decompressed (google.rpc.Status)"),
    415: _describe("Content type or encoding not taken (google.rpc.Status)"),
    429: {
        **_describe("A rate limit or the daily quota is used up (google.rpc.Status)"),
        "headers": {"Retry-After": {"schema": {"type": "integer"}}},
    },
}
BODY_DOC: Final = {
    "requestBody": {
        "required": False,
        "description": "An Export…ServiceRequest, protobuf (`application/x-protobuf`) or JSON "
        "(`application/json`), optionally gzip. An empty body holds nothing.",
        "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
    }
}


async def _export(
    request: Request, ing: Ingestion, source: SourceInfo, kind: str
) -> tuple[int, str]:
    """Stores the request's records; (records not kept, why)."""
    with ing.reading_account() as grow:
        data = await read_body(request, grow)
        async with ing.slots:
            received = ing.now()

            def parse(data: bytes) -> list[Any]:
                message = otlp.decode_request(data, kind)
                return otlp.build_events(
                    message, source_id=source.id, team_id=source.team_id, received=received
                )

            try:
                big = len(data) > OFF_LOOP_BYTES
                events = await asyncio.to_thread(parse, data) if big else parse(data)
            except Unparseable as exc:
                raise Refused(400, str(exc)) from None
            if source.paused:
                return len(events), PAUSED
            batch = ing.fresh(source, EventBatch.of(events), received)
            await ing.store_events(source, batch)
            dropped = len(events) - len(batch)
            return dropped, EXPIRED if dropped else ""


@router.post(
    "/v1/logs",
    summary="Send logs over OTLP/HTTP (OpenTelemetry)",
    description=(
        "An OTLP ExportLogsServiceRequest (`application/x-protobuf` or `application/json`, "
        "optionally gzip) with `Authorization: Bearer <source token>`; answers per the OTLP "
        "specification, partial success included."
    ),
    responses=RESPONSES,
    openapi_extra=BODY_DOC,
    response_class=Response,
)
async def export_logs(request: Request) -> Response:
    return await _answer(request, _export, otlp.success)


Export = Callable[[Request, Ingestion, SourceInfo, str], Awaitable[tuple[int, str]]]


async def _answer(
    request: Request, export: Export, success: Callable[[str, int, str], tuple[bytes, str]]
) -> Response:
    """An OTLP export: the source, the body's media type, `export` storing it; the answer
    (partial success or a google.rpc.Status) in the request's encoding."""
    kind = otlp.media(request.headers.get("content-type", "")) or otlp.JSON
    ing = ingestion_for(request)
    try:
        source = await ing.source_for(request)
        if otlp.media(request.headers.get("content-type", "")) is None:
            raise Refused(415, "Content-Type must be application/x-protobuf or application/json")
        rejected, why = await export(request, ing, source, kind)
    except Refused as exc:
        body, media_type = otlp.status(kind, exc.status, exc.message)
        return Response(body, status_code=exc.status, media_type=media_type, headers=exc.headers)
    body, media_type = success(kind, rejected, why)
    return Response(body, status_code=200, media_type=media_type)


async def _export_metrics(
    request: Request, ing: Ingestion, source: SourceInfo, kind: str
) -> tuple[int, str]:
    """Stores the request's samples; (data points not kept, why)."""
    with ing.reading_account() as grow:
        data = await read_body(request, grow)
        async with ing.slots:
            received = ing.now()
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

            try:
                big = len(data) > OFF_LOOP_BYTES
                samples, points, dropped = (
                    await asyncio.to_thread(parse, data) if big else parse(data)
                )
            except Unparseable as exc:
                raise Refused(400, str(exc)) from None
            if source.paused:
                return points, PAUSED.replace("records", "data points")
            await ing.store_metrics(source, samples)
            return dropped, EXPIRED_METRICS if dropped else ""


@router.post(
    "/v1/metrics",
    summary="Send metrics over OTLP/HTTP (OpenTelemetry)",
    description=(
        "An OTLP ExportMetricsServiceRequest (`application/x-protobuf` or `application/json`, "
        "optionally gzip) with `Authorization: Bearer <source token>`: its data points become "
        "the source's metric samples. Answers per the OTLP specification."
    ),
    responses=RESPONSES,
    openapi_extra=BODY_DOC,
    response_class=Response,
)
async def export_metrics(request: Request) -> Response:
    return await _answer(request, _export_metrics, otlp_metrics.success)


routers = (router,)
