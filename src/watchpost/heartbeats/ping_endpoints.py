"""The public ping URLs of heartbeats, /api/v1/heartbeat/{token}…; no API token needed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import PlainTextResponse, Response
from starlette.exceptions import HTTPException

from watchpost.errors import ApiError
from watchpost.heartbeats.pings import (
    EXIT_CODE_MAX,
    OUTPUT_LIMIT,
    Failure,
    Ping,
    Received,
    Success,
    failure_output,
    record_ping,
    record_successes,
)
from watchpost.heartbeats.service import PING_PATH
from watchpost.http.deps import Context, write_session
from watchpost.http.openapi import ERROR_RESPONSES, MessageErrorBody
from watchpost.http.ratelimit import limit_by_address
from watchpost.validation import ascii_int, documented_as

# Limited per client address before anything else: pings need no token to be counted by.
router = APIRouter(
    prefix=PING_PATH.rstrip("/"),
    tags=["heartbeat pings"],
    dependencies=[Depends(limit_by_address)],
)
SECRET_PATH_PREFIXES = (PING_PATH,)
"""The segment after this is the heartbeat's token: logs mask it (http/logs.py)."""

METHODS = ["GET", "POST", "HEAD"]
TOKEN_MAX = 64  # the column's length: a longer token names no heartbeat
NO_SUCH_HEARTBEAT = "No heartbeat has this ping token"
ANSWER = "OK"

RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": f'Ping recorded (or ignored: the heartbeat is paused). Body "{ANSWER}".',
        "content": {"text/plain": {"schema": {"type": "string", "example": ANSWER}}},
    },
    # Spelled out: with `model`, FastAPI would document the route's text/plain media type.
    404: {
        "description": "No heartbeat has this token",
        "content": {"application/json": {"schema": MessageErrorBody.model_json_schema()}},
    },
    429: {
        "description": ERROR_RESPONSES[429]["description"],
        "headers": ERROR_RESPONSES[429]["headers"],
        "content": {"application/json": {"schema": MessageErrorBody.model_json_schema()}},
    },
}
OUTPUT_BODY = {
    "requestBody": {
        "required": False,
        "description": (
            f"The job's output, any content type. The first {OUTPUT_LIMIT} bytes are kept "
            "(as UTF-8, invalid bytes replaced) in the heartbeat's ping log and in the cause "
            "of the incident a failure opens."
        ),
        "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
    }
}
SUCCESS_DOC = (
    "Reports that the job ran. A pending or down heartbeat goes up, and an incident the "
    "failure or the missed deadline opened is resolved. The next deadline is this ping's "
    "time + period + grace. A paused heartbeat ignores pings (still 200)."
)
FAILURE_DOC = (
    "Reports that the job failed: the heartbeat goes down at once and an incident opens "
    "(unless one is open); the deadline still moves to this ping + period + grace. Inside "
    "the maintenance window a failure only counts as a ping. A paused heartbeat ignores it."
)


async def _output(request: Request) -> tuple[str, bool]:
    """The body's first OUTPUT_LIMIT bytes as text; the rest is never read into memory."""
    kept = bytearray()
    async for chunk in request.stream():
        kept += chunk[: OUTPUT_LIMIT + 1 - len(kept)]
        if len(kept) > OUTPUT_LIMIT:
            break
    return failure_output(bytes(kept))


async def _received(request: Request, exit_code: int | None = None) -> Received:
    """What the ping log keeps of the request: its body's first bytes, who sent it. A
    request announcing no body (most pings: a GET) is not read."""
    headers = request.headers
    sends_body = "content-length" in headers or "transfer-encoding" in headers
    body, truncated = await _output(request) if sends_body else ("", False)
    return Received(
        body=body,
        truncated=truncated,
        exit_code=exit_code,
        address=request.client.host if request.client is not None else None,
        user_agent=request.headers.get("user-agent"),
    )


async def _ping(
    request: Request, ctx: Context, token: str, failure: Failure | None, received: Received
) -> Response:
    """A success ping of an up heartbeat is written with the pings arriving beside it (one
    transaction for them all: db/group_commit.py); any other in a transaction of its own."""
    if len(token) > TOKEN_MAX:
        raise ApiError(404, NO_SUCH_HEARTBEAT)
    now = ctx.clock.now()
    if failure is None and await ctx.db.grouped(record_successes).submit(
        Success(token, now, received)
    ):
        return PlainTextResponse(ANSWER)
    db = await write_session(request)
    async with db.begin():
        outcome = await record_ping(db, token=token, now=now, failure=failure, received=received)
    if outcome is Ping.UNKNOWN:
        raise ApiError(404, NO_SUCH_HEARTBEAT)
    return PlainTextResponse(ANSWER)


async def ping(token: str, request: Request, ctx: Context) -> Response:
    return await _ping(request, ctx, token, None, await _received(request))


async def ping_failure(token: str, request: Request, ctx: Context) -> Response:
    received = await _received(request)
    failure = Failure(output=received.body, truncated=received.truncated)
    return await _ping(request, ctx, token, failure, received)


# Read by hand rather than by the path's int convertor: that one accepts any run of digits and
# int() then fails past 4,300 of them. Documented as the integer it must be.
ExitCode = Annotated[
    str,
    Path(
        json_schema_extra=documented_as({"type": "integer", "minimum": 0, "maximum": EXIT_CODE_MAX})
    ),
]


async def ping_exit_code(
    token: str, exit_code: ExitCode, request: Request, ctx: Context
) -> Response:
    code = ascii_int(exit_code, low=0, high=EXIT_CODE_MAX)
    if code is None:
        raise HTTPException(404)  # answered like a route that does not exist
    received = await _received(request, code)
    if code == 0:
        return await _ping(request, ctx, token, None, received)
    failure = Failure(exit_code=code, output=received.body, truncated=received.truncated)
    return await _ping(request, ctx, token, failure, received)


def _register(
    path: str, endpoint: Callable[..., Awaitable[Response]], summary: str, description: str
) -> None:
    """One route per method, so each has its own OpenAPI operation id."""
    for method in METHODS:
        body = method == "POST"
        router.add_api_route(
            path,
            endpoint,
            methods=[method],
            operation_id=f"heartbeat_{endpoint.__name__}_{method.lower()}",
            summary=summary,
            description=description,
            responses=RESPONSES,
            response_class=PlainTextResponse,
            openapi_extra=OUTPUT_BODY if body else None,
        )


_register("/{token}", ping, "Ping a heartbeat: the job ran", SUCCESS_DOC)
_register("/{token}/fail", ping_failure, "Ping a heartbeat: the job failed", FAILURE_DOC)
_register(
    "/{token}/{exit_code}",
    ping_exit_code,
    "Ping a heartbeat with the job's exit code",
    f"`exit_code` is 0 to {EXIT_CODE_MAX}; anything else is a 404 like an unknown route. "
    f"0 is a success ping. Non-zero is a failure: {FAILURE_DOC}",
)

# What routes.py serves: this module's routers, each listed flat in the app.
routers = (router,)
