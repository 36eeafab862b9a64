"""Where errors become HTTP: the error values of `watchpost/errors.py`, the framework's own
(validation, unknown routes) and the ones no handler took, all in one shape:

- 4xx validation problems: ``{"errors": [messages], "invalid_attributes": [fields]}``
- everything else:         ``{"errors": "message"}``
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match, Route
from starlette.types import Message, Receive, Scope, Send

from watchpost.db.outage import RETRY_AFTER_S, Outage
from watchpost.errors import ApiError, InvalidRequest
from watchpost.http.middleware import HttpMiddleware
from watchpost.http.openapi import ERROR_RESPONSES
from watchpost.problems import problems_from

log = logging.getLogger(__name__)


def json_error(
    status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> Response:
    return Response(
        orjson.dumps(body), status_code=status, media_type="application/json", headers=headers
    )


def install_error_handlers(app: FastAPI) -> None:
    async def on_api_error(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return json_error(exc.status, exc.body, exc.headers)

    async def on_invalid(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, InvalidRequest)
        return json_error(exc.status, exc.body)

    async def on_request_validation(_request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError | ValidationError)
        invalid = InvalidRequest(problems_from(exc.errors()))
        return json_error(invalid.status, invalid.body)

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


class UnhandledErrors(HttpMiddleware):
    """The outermost middleware but SecurityHeaders: an exception no handler took becomes a
    JSON answer.

    - the database cannot be reached: 503 with `Retry-After`; the outage is logged once for
      the process (`db/outage.py`), not per request;
    - anything else: 500 `{"errors": "Internal server error"}` and exactly one traceback,
      logged by `watchpost.http.errors`, whose paths and traceback are masked (http/logs.py).

    Either way the response is complete and well-formed, so the kept-alive connection stays
    usable. The exception is not re-raised: the server would log it again and reset the
    connection.
    """

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
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
    return {status: ERROR_RESPONSES[status] for status in statuses}


READ_ERRORS = error_responses(401, 404)
"""What reading one object can answer besides its document."""
WRITE_ERRORS = error_responses(400, 401, 404, 415, 422)
"""What a request with a body can answer besides its document."""
