"""The public URLs of incoming webhooks, /api/v1/incoming-webhook/{token}; no API token."""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response

from watchpost.errors import ApiError
from watchpost.http.deps import Context, ReadDb, request_sessions
from watchpost.http.openapi import ERROR_RESPONSES, MessageErrorBody
from watchpost.http.ratelimit import limit_by_address
from watchpost.incoming.matching import Received
from watchpost.incoming.receiving import Outcome, judged, judged_settings, receive
from watchpost.incoming.service import RECEIVE_PATH

# Limited per client address before anything else: these requests carry no API token.
router = APIRouter(
    prefix=RECEIVE_PATH.rstrip("/"),
    tags=["incoming webhook requests"],
    dependencies=[Depends(limit_by_address)],
)
SECRET_PATH_PREFIXES = (RECEIVE_PATH,)
"""The segment after this is the webhook's token: logs mask it (http/logs.py)."""

METHODS: Final = ("POST", "PUT", "GET")
TOKEN_MAX: Final = 64  # the column's length: a longer token names no webhook
BODY_LIMIT: Final = 64 * 1024
"""Bytes of body read at most; a longer body is a 413 (never read into memory)."""
QUERY_MAX: Final = 100
"""Query parameters looked at, at most."""
NO_SUCH_WEBHOOK: Final = "No incoming webhook has this token"


def _message(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": MessageErrorBody.model_json_schema()}},
    }


RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "What the request did: `result` is started, acknowledged, resolved or "
        "ignored (nothing to do, or the webhook is paused).",
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "result": {
                            "type": "string",
                            "enum": ["started", "acknowledged", "resolved", "ignored"],
                        }
                    },
                    "required": ["result"],
                }
            }
        },
    },
    404: _message("No incoming webhook has this token"),
    413: _message(f"The body is longer than {BODY_LIMIT} bytes"),
    429: {
        **_message(ERROR_RESPONSES[429]["description"]),
        "headers": ERROR_RESPONSES[429]["headers"],
    },
}
BODY_DOC: Final = {
    "requestBody": {
        "required": False,
        "description": f"Any content type, up to {BODY_LIMIT} bytes; JSON for `json` rules.",
        "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
    }
}


async def _body(request: Request) -> bytes:
    kept = bytearray()
    async for chunk in request.stream():
        kept += chunk
        if len(kept) > BODY_LIMIT:
            raise ApiError(413, f"The body is longer than {BODY_LIMIT} bytes")
    return bytes(kept)


async def receive_request(token: str, request: Request, ctx: Context, db: ReadDb) -> Response:
    if len(token) > TOKEN_MAX:
        raise ApiError(404, NO_SUCH_WEBHOOK)
    query: dict[str, str] = {}
    for name, value in request.query_params.multi_items()[:QUERY_MAX]:
        query.setdefault(name, value)
    received = Received(
        body=await _body(request),
        headers={name.lower(): value for name, value in request.headers.items()},
        query=query,
    )
    webhook = await judged_settings(db, token=token)
    await db.close()  # the read transaction ends: nothing is held while patterns run
    if webhook is None:
        raise ApiError(404, NO_SUCH_WEBHOOK)
    verdict = await judged(webhook, received)
    write = await request_sessions(request).write()
    async with write.begin():
        outcome = await receive(
            write, token=token, received=received, verdict=verdict, now=ctx.clock.now()
        )
    if outcome is Outcome.UNKNOWN:
        raise ApiError(404, NO_SUCH_WEBHOOK)
    return JSONResponse({"result": outcome.value})


for _method in METHODS:
    router.add_api_route(
        "/{token}",
        receive_request,
        methods=[_method],
        operation_id=f"incoming_webhook_receive_{_method.lower()}",
        summary="Send a request to an incoming webhook",
        description=(
            "The webhook's rules decide what the request does: resolve its open incident, "
            "acknowledge it, or start one (one open at a time). Bodies over "
            f"{BODY_LIMIT} bytes are refused (413)."
        ),
        responses=RESPONSES,
        openapi_extra=BODY_DOC if _method != "GET" else None,
    )

routers = (router,)
