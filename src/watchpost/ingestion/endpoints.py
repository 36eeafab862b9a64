"""`POST /`: the hosted service's HTTP log ingestion, on any host, with a source token.

202 with an empty body once the events are stored durably; 401 without a bearer token, 403
for a token no source has; 406 for a body that cannot be read; 413 past 20 MiB decoded; 415
for a content type or encoding not taken; 429 (with Retry-After) past a rate limit or the
source's daily quota. A source whose `ingesting_paused` is true answers 202 and keeps nothing.
Errors answer `{"errors": "message"}`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any, Final, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import Response

from watchpost.http.errors import json_error
from watchpost.http.openapi import ERROR_RESPONSES, MessageErrorBody
from watchpost.ingestion.state import (
    SOURCE_TOKEN,
    TOO_LARGE,
    Ingestion,
    Refused,
    SourceInfo,
    ingestion_for,
)
from watchpost.logs.batch import EventBatch
from watchpost.logs.ingest_body import (
    MAX_BODY_BYTES,
    BadEncoding,
    BodyTooLarge,
    content_encoding,
    declared_too_large,
    read_decoded,
)
from watchpost.logs.parsing import MSGPACK, Unparseable, build_batch, decode, media_format

router = APIRouter(tags=["logs ingestion"], dependencies=[SOURCE_TOKEN])

OFF_LOOP_BYTES: Final = 1024 * 1024
"""Bodies larger than this are parsed in a worker thread, so the event loop keeps serving."""

T = TypeVar("T")


def _message(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": MessageErrorBody.model_json_schema()}},
    }


RESPONSES: dict[int | str, dict[str, Any]] = {
    202: {"description": "Stored (or dropped: the source's ingesting is paused). No body."},
    401: _message("No bearer token"),
    403: _message("No source has this token"),
    406: _message("The body cannot be read as its content type"),
    413: _message(f"The body is over {MAX_BODY_BYTES} bytes (decompressed)"),
    415: _message("The content type or encoding is not one ingestion takes"),
    429: {
        **_message("A rate limit or the source's daily quota is used up"),
        "headers": ERROR_RESPONSES[429]["headers"],
    },
}
BODY_DOC: Final = {
    "requestBody": {
        "required": False,
        "description": "One event (an object), an array of events, or NDJSON "
        "(`application/x-ndjson`); JSON (`application/json`) or MessagePack "
        "(`application/msgpack`); optionally compressed (`Content-Encoding: gzip` or "
        "`deflate`). An empty body holds no events.",
        "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
    }
}


def refusal(exc: Refused) -> Response:
    return json_error(exc.status, {"errors": exc.message}, exc.headers)


async def read_body(request: Request, grow: Callable[[int], None] | None = None) -> bytes:
    """The decoded body, or Refused (413, 415, 406; 503 when `grow` refuses more bytes)."""
    try:
        encoding = content_encoding(request.headers.get("content-encoding", ""))
    except BadEncoding as exc:
        raise Refused(415, str(exc)) from None
    if declared_too_large(request.headers.get("content-length", ""), MAX_BODY_BYTES):
        raise Refused(413, TOO_LARGE)
    try:
        return await read_decoded(request.stream(), encoding, grow=grow)
    except BodyTooLarge:
        raise Refused(413, TOO_LARGE) from None
    except BadEncoding as exc:
        raise Refused(406, str(exc)) from None


@asynccontextmanager
async def receiving(request: Request, ing: Ingestion) -> AsyncIterator[tuple[bytes, datetime]]:
    """The request's body and the time of its receipt, counted against ingestion's memory and
    holding one of its slots until the block ends (this route's and the OTLP exports')."""
    with ing.reading_account() as grow:
        data = await read_body(request, grow)
        async with ing.slots:
            yield data, ing.now()


async def parsed(data: bytes, parse: Callable[[bytes], T], *, unreadable: int) -> T:
    """parse(data), in a worker thread when the body is big; a body it cannot read is refused
    with the status `unreadable` (406 here, 400 for OTLP)."""
    try:
        big = len(data) > OFF_LOOP_BYTES
        return await asyncio.to_thread(parse, data) if big else parse(data)
    except Unparseable as exc:
        raise Refused(unreadable, str(exc)) from None


async def _ingest(request: Request, ing: Ingestion, source: SourceInfo) -> None:
    kind = media_format(request.headers.get("content-type", ""))
    if kind is None:
        raise Refused(
            415,
            "Content-Type must be application/json, application/x-ndjson or application/msgpack",
        )
    async with receiving(request, ing) as (data, received):
        await _store(ing, source, data, kind, received)


async def _store(
    ing: Ingestion, source: SourceInfo, data: bytes, kind: str, received: datetime
) -> None:
    """Parses the body and stores its events (406 when it cannot be read)."""

    def parse(data: bytes) -> EventBatch:
        if kind == MSGPACK:  # the native path, for the bodies it reproduces exactly
            from watchpost.logs import fast_columns  # Arrow: loaded at the first such body

            fast = fast_columns.build_batch(
                data, source_id=source.id, team_id=source.team_id, received=received
            )
            if fast is not None:
                return fast
        items = decode(data, kind)
        return build_batch(items, source_id=source.id, team_id=source.team_id, received=received)

    events = await parsed(data, parse, unreadable=406)
    await ing.store_events(source, ing.fresh(source, events, received))


@router.post(
    "/",
    status_code=202,
    summary="Send log events (the hosted service's HTTP ingestion)",
    description=(
        "`Authorization: Bearer <source token>`. The body is one event, an array of events or "
        "NDJSON, as JSON or MessagePack, optionally gzip-compressed; each event's `dt` (Unix "
        "seconds, milliseconds or nanoseconds, or RFC 3339) is its time, else the time of "
        "receipt. Answers 202 with no body once the events are stored durably."
    ),
    responses=RESPONSES,
    openapi_extra=BODY_DOC,
    response_class=Response,
)
async def ingest(request: Request) -> Response:
    ing = ingestion_for(request)
    try:
        source = await ing.source_for(request)
        if not source.paused:
            await _ingest(request, ing, source)
    except Refused as exc:
        return refusal(exc)
    return Response(status_code=202)


routers = (router,)
