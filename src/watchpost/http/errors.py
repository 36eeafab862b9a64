"""Errors are values with one shape; the handlers here are the only place they become HTTP.

- 4xx validation problems: ``{"errors": [messages], "invalid_attributes": [fields]}``
- everything else:         ``{"errors": "message"}``
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from watchpost.db.outage import RETRY_AFTER_S, Outage
from watchpost.validation import parse_id

log = logging.getLogger(__name__)

UNAUTHORIZED_MESSAGE = (
    "Invalid Team API token. Send a valid token as 'Authorization: Bearer <token>'."
)


def json_error(
    status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> Response:
    return Response(
        orjson.dumps(body), status_code=status, media_type="application/json", headers=headers
    )


class ApiError(Exception):
    """An error with a plain message body: 401, 403, 404, 405, 409."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers

    def response(self) -> Response:
        return json_error(self.status, {"errors": self.message}, self.headers)


class Unauthorized(ApiError):
    def __init__(self) -> None:
        super().__init__(401, UNAUTHORIZED_MESSAGE, {"WWW-Authenticate": "Bearer"})


class NotFound(ApiError):
    def __init__(self, resource_type: str, object_id: object) -> None:
        super().__init__(404, f"Resource type {resource_type} with id = {object_id} was not found")


class Conflict(ApiError):
    def __init__(self, message: str) -> None:
        super().__init__(409, message)


class InvalidRequest(Exception):
    """A request whose content is wrong: 422 (or 400/415) naming the offending fields."""

    def __init__(self, problems: Sequence[tuple[str | None, str]], *, status: int = 422) -> None:
        """problems: (field or None, full human-readable message) pairs."""
        super().__init__("; ".join(message for _, message in problems))
        self.status = status
        self.problems = list(problems)

    @classmethod
    def field(cls, field: str, message: str) -> InvalidRequest:
        return cls([(field, f"{field} {message}")])

    def response(self) -> Response:
        fields = list(dict.fromkeys(field for field, _ in self.problems if field))
        return json_error(
            self.status,
            {"errors": [message for _, message in self.problems], "invalid_attributes": fields},
        )


def _describe(error: ErrorDetails) -> tuple[str | None, str]:
    """A pydantic error as (top-level field, message) without ever echoing the input."""
    loc = [str(part) for part in error["loc"] if part not in ("body", "query", "path")]
    field = loc[0] if loc else None
    path = ".".join(loc) if loc else "body"
    kind = error["type"]
    if kind == "missing":
        text = "is required"
    elif kind == "extra_forbidden":
        text = "is not a known attribute"
    else:
        text = error["msg"]
        if text.startswith("Value error, "):
            text = text[len("Value error, ") :]
        elif text.startswith("Assertion failed, "):
            text = text[len("Assertion failed, ") :]
        text = text.replace("Input should be", "must be").replace("String should", "must")
        text = text.replace("List should", "must").replace("Dictionary should", "must")
    return field, f"{path} {text}"


def problems_from(errors: Iterable[ErrorDetails]) -> list[tuple[str | None, str]]:
    return [_describe(error) for error in errors]


def install_error_handlers(app: FastAPI) -> None:
    async def on_api_error(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return exc.response()

    async def on_invalid(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, InvalidRequest)
        return exc.response()

    async def on_request_validation(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError | ValidationError)
        return InvalidRequest(problems_from(exc.errors())).response()

    async def on_http_exception(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        headers = dict(exc.headers or {})
        if exc.status_code == 404:
            message = f"Endpoint {request.method} {request.url.path} does not exist."
        elif exc.status_code == 405:
            message = f"Method {request.method} is not allowed for {request.url.path}."
            headers["Allow"] = allowed_methods(request)
        else:
            message = str(exc.detail)
        return json_error(exc.status_code, {"errors": message}, headers)

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(InvalidRequest, on_invalid)
    app.add_exception_handler(RequestValidationError, on_request_validation)
    app.add_exception_handler(ValidationError, on_request_validation)
    app.add_exception_handler(StarletteHTTPException, on_http_exception)
    # Any other exception is UnhandledErrors' (below), not a handler's: Starlette re-raises
    # after an `Exception` handler answers, so the server logged a second traceback and
    # reset the kept-alive connection.


INTERNAL_ERROR = "Internal server error"
UNAVAILABLE = "The database is unavailable. Retry later."


def unavailable_response() -> Response:
    """503 while the database cannot be reached: clients retry after RETRY_AFTER_S."""
    return json_error(503, {"errors": UNAVAILABLE}, {"Retry-After": str(RETRY_AFTER_S)})


class UnhandledErrors:
    """The outermost middleware: an exception no handler took becomes a JSON answer.

    - the database cannot be reached: 503 with `Retry-After`; the outage is logged once for
      the process (`db/outage.py`), not per request;
    - anything else: 500 `{"errors": "Internal server error"}` and exactly one traceback,
      logged by `watchpost.http.errors`, whose paths and traceback are masked (http/logs.py).

    Either way the response is complete and well-formed, so the kept-alive connection stays
    usable. The exception is not re-raised: the server would log it again and reset the
    connection.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except ClientDisconnect:
            return  # nobody is left to answer
        except Exception as exc:
            outage: Outage = scope["app"].state.ctx.db.outage
            if outage.report(exc):
                response = unavailable_response()
            else:
                log.exception("unhandled error in %s %s", scope["method"], scope["path"])
                response = json_error(500, {"errors": INTERNAL_ERROR})
            if not started:  # else the answer is on its way and cannot be replaced
                await response(scope, receive, send)


def allowed_methods(request: Request) -> str:
    """Every method some route serves at the request's path, for a 405's Allow header.

    Starlette answers 405 from the first route whose path matched, so its own Allow header
    names that route's methods only; routes are listed flat here, one per path and method
    group, so the others have to be asked too.
    """
    methods: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, Route) and route.methods:
            match, _ = route.matches(request.scope)
            if match is not Match.NONE:
                methods |= route.methods
    return ", ".join(sorted(methods))


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI descriptions of our error bodies, for the `responses=` of a route."""
    from watchpost.http.openapi import ERROR_RESPONSES

    return {status: ERROR_RESPONSES[status] for status in statuses}


def object_id(raw: str, resource_type: str) -> int:
    """A path id as an integer; anything else (not ASCII digits, out of the id range) names
    no object, so it is a 404."""
    value = parse_id(raw)
    if value is None:
        raise NotFound(resource_type, raw)
    return value
