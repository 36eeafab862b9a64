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

from collections.abc import Awaitable, Callable
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import Response

from watchpost.ingestion.state import SOURCE_TOKEN, Refused, ingestion_for
from watchpost.logs import otlp_http

router = APIRouter(tags=["logs ingestion"], dependencies=[SOURCE_TOKEN])
Route = Callable[[Request], Awaitable[Response]]


def _describe(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {
            otlp_http.PROTOBUF: {"schema": {"type": "string", "format": "binary"}},
            otlp_http.JSON: {"schema": {"type": "object"}},
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


def _export_route(path: str, summary: str, description: str) -> Callable[[Route], Route]:
    """An OTLP export's route: documented alike (RESPONSES, BODY_DOC), answering raw bytes."""
    return router.post(
        path,
        summary=summary,
        description=description,
        responses=RESPONSES,
        openapi_extra=BODY_DOC,
        response_class=Response,
    )


@_export_route(
    "/v1/logs",
    "Send logs over OTLP/HTTP (OpenTelemetry)",
    "An OTLP ExportLogsServiceRequest (`application/x-protobuf` or `application/json`, "
    "optionally gzip) with `Authorization: Bearer <source token>`; answers per the OTLP "
    "specification, partial success included.",
)
async def export_logs(request: Request) -> Response:
    return await _answer(request, "logs")


async def _answer(request: Request, signal: str) -> Response:
    """An OTLP export of logs or metrics: the source, the body's media type, the signal's
    export storing it (otlp_export.EXPORTS); the answer (partial success or a
    google.rpc.Status) in the request's encoding."""
    media = otlp_http.media(request.headers.get("content-type", ""))
    kind = media or otlp_http.JSON
    ing = ingestion_for(request)
    try:
        source = await ing.source_for(request)
        if media is None:
            raise Refused(415, "Content-Type must be application/x-protobuf or application/json")
        # OpenTelemetry's protobuf: at the first export a token and a content type admit.
        from watchpost.ingestion import otlp_export

        export, success = otlp_export.EXPORTS[signal]
        rejected, why = await export(request, ing, source, kind)
    except Refused as exc:
        body, media_type = otlp_http.status(kind, exc.status, exc.message)
        return Response(body, status_code=exc.status, media_type=media_type, headers=exc.headers)
    body, media_type = success(kind, rejected, why)
    return Response(body, status_code=200, media_type=media_type)


@_export_route(
    "/v1/metrics",
    "Send metrics over OTLP/HTTP (OpenTelemetry)",
    "An OTLP ExportMetricsServiceRequest (`application/x-protobuf` or `application/json`, "
    "optionally gzip) with `Authorization: Bearer <source token>`: its data points become "
    "the source's metric samples. Answers per the OTLP specification.",
)
async def export_metrics(request: Request) -> Response:
    return await _answer(request, "metrics")


routers = (router,)
