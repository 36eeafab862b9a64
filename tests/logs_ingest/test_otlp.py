"""POST /v1/logs: OTLP/HTTP logs, protobuf and JSON, gzip, partial success and the OTLP
answers, on both backends."""

from __future__ import annotations

import gzip
from datetime import timedelta

import httpx
import orjson
from fastapi import FastAPI
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs

from tests.factories.api import Api
from tests.factories.log_ingest import create_source, raw, send, stored, texts
from watchpost.clock import FrozenClock
from watchpost.ingestion.state import TOO_LARGE
from watchpost.logs.ingest_body import MAX_BODY_BYTES
from watchpost.logs.store import Field

PROTOBUF = "application/x-protobuf"


def record(
    body: str, nanos: int, severity: int = 17, attributes: dict[str, str] | None = None
) -> LogRecord:
    return LogRecord(
        time_unix_nano=nanos,
        severity_number=severity,  # type: ignore[arg-type]
        body=AnyValue(string_value=body),
        attributes=[
            KeyValue(key=k, value=AnyValue(string_value=v)) for k, v in (attributes or {}).items()
        ],
        trace_id=bytes.fromhex("5b8efff798038103d269b633813fc60c"),
        span_id=bytes.fromhex("eee19b7ec3c1b174"),
    )


def export(*records: LogRecord) -> ExportLogsServiceRequest:
    resource = {"service.name": AnyValue(string_value="checkout")}
    return ExportLogsServiceRequest(
        resource_logs=[
            ResourceLogs(
                resource={"attributes": [KeyValue(key=k, value=v) for k, v in resource.items()]},  # type: ignore[arg-type]
                scope_logs=[ScopeLogs(scope={"name": "app.logger"}, log_records=list(records))],  # type: ignore[arg-type]
            )
        ]
    )


async def test_protobuf_records_are_stored_as_events(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    source_id, token = await create_source(api, platform="open_telemetry")
    nanos = int(clock.now().timestamp() * 1e9) - 5_000_000_000
    body = export(
        record("payment failed", nanos, attributes={"http.method": "POST"})
    ).SerializeToString()
    response = await send(client, token, body, PROTOBUF, gzipped=True, path="/v1/logs")
    assert response.status_code == 200, response.content
    assert response.headers["content-type"] == PROTOBUF
    answer = ExportLogsServiceResponse.FromString(response.content)
    assert not answer.HasField("partial_success")
    (event,) = await stored(app)
    assert event.source_id == source_id and event.dt == clock.now() - timedelta(seconds=5)
    sent = raw(event)
    assert (sent["level"], sent["service"], sent["message"]) == (
        "error",
        "checkout",
        "payment failed",
    )
    assert sent["attributes"] == {"http.method": "POST"}
    assert sent["trace_id"] == "5b8efff798038103d269b633813fc60c"
    assert sent["scope"] == {"name": "app.logger"}
    found = await stored(
        app,
        Field("level", "error"),
        Field("resource.service.name", "checkout"),
        Field("attributes.http.method", "post"),
    )
    assert found == [event]


async def test_json_encoding_with_hex_ids(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    _, token = await create_source(api)
    nanos = str(int(clock.now().timestamp() * 1e9))
    body = {
        "resourceLogs": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "api"}}]
                },
                "scopeLogs": [
                    {
                        "logRecords": [
                            {
                                "timeUnixNano": nanos,
                                "severityText": "WARN",
                                "body": {
                                    "kvlistValue": {
                                        "values": [{"key": "k", "value": {"intValue": "7"}}]
                                    }
                                },
                                "traceId": "5b8efff798038103d269b633813fc60c",
                                "spanId": "eee19b7ec3c1b174",
                            }
                        ]
                    }
                ],
            }
        ]
    }
    response = await send(client, token, orjson.dumps(body), path="/v1/logs")
    assert response.status_code == 200 and response.json() == {}
    (event,) = await stored(app)
    sent = raw(event)
    assert (sent["level"], sent["service"], sent["message"]) == ("warn", "api", '{"k":7}')
    assert sent["span_id"] == "eee19b7ec3c1b174" and sent["body"] == {"k": 7}
    assert await stored(app, Field("body.k", "7")) == [event]


async def test_partial_success_names_records_older_than_the_retention(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    _, token = await create_source(api, logs_retention=1)
    now = int(clock.now().timestamp() * 1e9)
    old = now - 2 * 86400 * 1_000_000_000
    body = export(record("old", old), record("new", now)).SerializeToString()
    response = await send(client, token, body, PROTOBUF, path="/v1/logs")
    assert response.status_code == 200
    partial = ExportLogsServiceResponse.FromString(response.content).partial_success
    assert partial.rejected_log_records == 1 and "retention" in partial.error_message
    assert texts(await stored(app)) == ["new"]


async def test_a_paused_source_rejects_every_record_without_retry(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    _, token = await create_source(api, ingesting_paused=True)
    now = int(clock.now().timestamp() * 1e9)
    body = export(record("a", now), record("b", now))
    response = await send(client, token, orjson.dumps({}), path="/v1/logs")
    assert response.status_code == 200
    response = await send(client, token, body.SerializeToString(), PROTOBUF, path="/v1/logs")
    partial = ExportLogsServiceResponse.FromString(response.content).partial_success
    assert partial.rejected_log_records == 2 and "paused" in partial.error_message
    assert await stored(app) == []


async def test_errors_are_statuses_in_the_request_encoding(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    _, token = await create_source(api)
    bad = await send(client, token, b"\xff\xff\xff", PROTOBUF, path="/v1/logs")
    assert bad.status_code == 400 and bad.headers["content-type"] == PROTOBUF
    assert b"OTLP protobuf" in bad.content
    bad_json = await send(client, token, b'{"resourceLogs": 5}', path="/v1/logs")
    assert bad_json.status_code == 400 and bad_json.json()["code"] == 3
    unknown = await send(client, "wps_nope", b"{}", path="/v1/logs")
    assert unknown.status_code == 403 and unknown.json()["code"] == 7
    no_token = await client.post(
        "/v1/logs", content=b"{}", headers={"Content-Type": "application/json"}
    )
    assert no_token.status_code == 401
    other_type = await send(client, token, b"x", "text/plain", path="/v1/logs")
    assert other_type.status_code == 415
    ctx = app.state.ctx
    ctx.settings = ctx.settings.model_copy(update={"logs_daily_event_quota": 1})
    app.state.log_ingestion = None  # read the new settings
    now = int(clock.now().timestamp() * 1e9)
    two = export(record("a", now), record("b", now)).SerializeToString()
    over = await send(client, token, two, PROTOBUF, path="/v1/logs")
    assert over.status_code == 429 and int(over.headers["retry-after"]) > 0
    assert await stored(app) == []


async def test_past_20_mib_decoded_and_past_the_reading_budget(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    """413 for a body over 20 MiB once decompressed (not retried by OTLP clients); 503 with
    Retry-After past the reading budget (retried), each a google.rpc.Status in the request's
    encoding, and nothing kept of either."""
    _, token = await create_source(api)
    # a gzip bomb: a record of 21 MiB of spaces, a few kB on the wire
    now = int(clock.now().timestamp() * 1e9)
    huge = export(record(" " * (MAX_BODY_BYTES + 1024 * 1024), now)).SerializeToString()
    bomb = gzip.compress(huge)
    assert len(bomb) < 100_000
    too_large = await send(client, token, bomb, PROTOBUF, path="/v1/logs", extra=GZIP)
    assert too_large.status_code == 413 and too_large.headers["content-type"] == PROTOBUF
    assert rpc_status(too_large.content) == (3, TOO_LARGE)  # INVALID_ARGUMENT
    too_large_json = await send(
        client,
        token,
        gzip.compress(b"[" + b" " * (MAX_BODY_BYTES + 1) + b"]"),
        extra=GZIP,
        path="/v1/logs",
    )
    assert too_large_json.status_code == 413
    assert too_large_json.json() == {"code": 3, "message": TOO_LARGE}
    ing = app.state.log_ingestion
    ing.reading_budget = 1000
    body = export(*(record("x" * 100, now) for _ in range(20))).SerializeToString()
    busy = await send(client, token, body, PROTOBUF, path="/v1/logs")
    assert busy.status_code == 503 and busy.headers["retry-after"] == "1"
    code, message = rpc_status(busy.content)
    assert code == 14 and "retry" in message  # UNAVAILABLE
    assert ing.reading == 0
    assert await stored(app) == []


GZIP = {"Content-Encoding": "gzip"}


def rpc_status(content: bytes) -> tuple[int, str]:
    """A protobuf google.rpc.Status read by hand: field 1 (code, varint), field 2 (message)."""
    assert content[0] == 0x08
    code, at = _read_varint(content, 1)
    assert content[at] == 0x12
    length, at = _read_varint(content, at + 1)
    assert at + length == len(content)
    return code, content[at:].decode()


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if byte < 0x80:
            return value, at
