"""OpenTelemetry logs over OTLP/HTTP: an ExportLogsServiceRequest (protobuf or its JSON
mapping) turned into log events, and the answers the OTLP specification asks for.

Each log record becomes one event, kept as this JSON (empty parts left out):

    {"dt": "<time>", "level": "error", "message": "<body as text>", "service": "<service.name>",
     "severity_text": "ERROR", "severity_number": 17, "body": <structured body>,
     "attributes": {...}, "resource": {...}, "scope": {"name": ..., "version": ...},
     "trace_id": "<hex>", "span_id": "<hex>", "event_name": ...}

Its time is `time_unix_nano`, else `observed_time_unix_nano`, else the time of receipt; its
level the severity text (lower-cased), else the name of its severity number's range.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, Final, TypeVar

import orjson
from google.protobuf import json_format
from google.protobuf.message import DecodeError, Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from watchpost.logs.events import LogEvent, new_event_ids
from watchpost.logs.otlp_http import JSON, PROTOBUF
from watchpost.logs.parsing import MAX_EVENTS, Unparseable, dumps, flatten, within_reach

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_SEVERITY_NAMES: Final = ("trace", "debug", "info", "warn", "error", "fatal")
_ID_FIELDS: Final = ("traceId", "spanId", "trace_id", "span_id")
_MAX_ANY_DEPTH: Final = 64


# ------------------------------------------------------------------------------ decoding


def decode_request(data: bytes, kind: str) -> ExportLogsServiceRequest:
    """The request message; Unparseable when the body is not one."""
    return decode(data, kind, ExportLogsServiceRequest(), _hex_ids_to_base64)


M = TypeVar("M", bound=Message)


def decode(data: bytes, kind: str, request: M, fix_json: Callable[[dict[str, Any]], None]) -> M:
    """`request` (an empty OTLP message) filled from the body, protobuf or JSON (`fix_json`
    first mends what protobuf's JSON mapping cannot read); Unparseable when it is not one."""
    name = request.DESCRIPTOR.name
    if kind == PROTOBUF:
        try:
            request.ParseFromString(data)
        except (DecodeError, RecursionError) as exc:
            raise Unparseable(f"the body is not an OTLP protobuf message ({exc})") from None
        return request
    try:
        value = orjson.loads(data) if data.strip() else {}
    except orjson.JSONDecodeError as exc:
        raise Unparseable(f"the body is not JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise Unparseable(f"the body must be a JSON object ({name})")
    fix_json(value)
    try:
        json_format.ParseDict(value, request, ignore_unknown_fields=True)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as exc:
        raise Unparseable(f"the body is not an OTLP JSON message ({exc})") from None
    return request


def _hex_ids_to_base64(value: dict[str, Any]) -> None:
    """OTLP's JSON writes trace and span ids as hex, where protobuf's JSON mapping of bytes
    is base64: rewritten in place before parsing."""
    for resource_logs in _list(value, "resourceLogs", "resource_logs"):
        for scope_logs in _list(resource_logs, "scopeLogs", "scope_logs"):
            for record in _list(scope_logs, "logRecords", "log_records"):
                for name in _ID_FIELDS:
                    text = record.get(name)
                    if isinstance(text, str) and text:
                        try:
                            record[name] = base64.b64encode(bytes.fromhex(text)).decode()
                        except ValueError:
                            raise Unparseable(f"{name} must be hex") from None


def _list(value: Any, *names: str) -> list[Any]:
    if not isinstance(value, dict):
        return []
    for name in names:
        found = value.get(name)
        if isinstance(found, list):
            return [item for item in found if isinstance(item, dict)]
    return []


def any_value(value: AnyValue, depth: int = 0) -> Any:
    """An AnyValue as plain data (bytes as base64 text)."""
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    if kind in ("array_value", "kvlist_value") and depth >= _MAX_ANY_DEPTH:
        return None
    if kind == "array_value":
        return [any_value(item, depth + 1) for item in value.array_value.values]
    if kind == "kvlist_value":
        return attributes(value.kvlist_value.values, depth + 1)
    return getattr(value, kind)


def attributes(pairs: Any, depth: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = {}
    pair: KeyValue
    for pair in pairs:
        found[pair.key] = any_value(pair.value, depth)
    return found


def level_name(text: str, number: int) -> str:
    if text:
        return text.lower()
    if 1 <= number <= 24:
        return _SEVERITY_NAMES[(number - 1) // 4]
    return ""


def nanos_time(nanos: int) -> datetime | None:
    """A time in Unix nanoseconds (0: none)."""
    if nanos <= 0:
        return None
    try:
        return _EPOCH + timedelta(microseconds=nanos // 1000)
    except OverflowError:
        return None


def build_events(
    request: ExportLogsServiceRequest,
    *,
    source_id: int,
    team_id: int,
    received: datetime,
    make_ids: Callable[[int], list[int]] = new_event_ids,
) -> list[LogEvent]:
    """One LogEvent per log record, in the request's order."""
    total = sum(
        len(scope.log_records) for logs in request.resource_logs for scope in logs.scope_logs
    )
    if total > MAX_EVENTS:
        raise Unparseable(f"a request holds at most {MAX_EVENTS} log records")
    ids = iter(make_ids(total))
    events: list[LogEvent] = []
    for logs in request.resource_logs:
        resource = attributes(logs.resource.attributes)
        service = resource.get("service.name")
        service_name = service if isinstance(service, str) else ""
        for scope_logs in logs.scope_logs:
            scope = _scope(scope_logs.scope)
            for record in scope_logs.log_records:
                event = _event(record, resource, scope, service_name)
                dt = nanos_time(record.time_unix_nano) or nanos_time(record.observed_time_unix_nano)
                when = within_reach(dt, received)
                event["dt"] = when.isoformat().replace("+00:00", "Z")
                events.append(
                    LogEvent(
                        id=next(ids),
                        source_id=source_id,
                        team_id=team_id,
                        dt=when,
                        level=event.get("level", ""),
                        service=service_name,
                        message=event.get("message", ""),
                        attributes=flatten(event),
                        raw=dumps(event),
                    )
                )
    return events


def _scope(scope: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if scope.name:
        found["name"] = scope.name
    if scope.version:
        found["version"] = scope.version
    if len(scope.attributes):
        found["attributes"] = attributes(scope.attributes)
    return found


def _event(
    record: Any, resource: dict[str, Any], scope: dict[str, Any], service: str
) -> dict[str, Any]:
    event: dict[str, Any] = {"dt": ""}
    level = level_name(record.severity_text, record.severity_number)
    if level:
        event["level"] = level
    body = any_value(record.body) if record.HasField("body") else None
    if body is not None:
        event["message"] = body if isinstance(body, str) else dumps(body).decode()
    if service:
        event["service"] = service
    if record.severity_text:
        event["severity_text"] = record.severity_text
    if record.severity_number:
        event["severity_number"] = int(record.severity_number)
    if body is not None and not isinstance(body, str):
        event["body"] = body
    if len(record.attributes):
        event["attributes"] = attributes(record.attributes)
    if resource:
        event["resource"] = resource
    if scope:
        event["scope"] = scope
    if record.trace_id:
        event["trace_id"] = record.trace_id.hex()
    if record.span_id:
        event["span_id"] = record.span_id.hex()
    if record.event_name:
        event["event_name"] = record.event_name
    return event


# ------------------------------------------------------------------------------ answers


def export_answer(
    response: ExportLogsServiceResponse | ExportMetricsServiceResponse,
    rejected_field: str,
    kind: str,
    rejected: int,
    message: str,
) -> tuple[bytes, str]:
    """An Export…ServiceResponse in the request's encoding: empty on full success, else its
    partial_success with `rejected` (counted in `rejected_field`) and `message`."""
    partial = response.partial_success
    if kind == PROTOBUF:
        if rejected or message:
            setattr(partial, rejected_field, rejected)
            partial.error_message = message
        return response.SerializeToString(), PROTOBUF
    body: dict[str, Any] = {}
    if rejected or message:
        json_name = partial.DESCRIPTOR.fields_by_name[rejected_field].json_name
        body["partialSuccess"] = {json_name: str(rejected), "errorMessage": message}
    return orjson.dumps(body), JSON


def success(kind: str, rejected: int = 0, message: str = "") -> tuple[bytes, str]:
    """An ExportLogsServiceResponse: full success, or partial with `rejected` records."""
    return export_answer(
        ExportLogsServiceResponse(), "rejected_log_records", kind, rejected, message
    )
