"""The audit log's record of what the API's tokens change, in one place instead of in every
endpoint: each token-protected POST, PUT, PATCH and DELETE route is of the class
`audited_route(recorder)` makes (routes.domain_routes, with audit/endpoints.record_api_write as
the recorder: the HTTP kit does not import the audit domain), which records `<type>.created` / `.updated` / `.deleted` (or the
action's word: `incident.acknowledged`) once the endpoint has answered 2xx, with the token
(its shown prefix) as the actor.

Right after the change, in a transaction of its own, not in the change's: the endpoints own
their transactions, and reaching into each would mean touching every one. A change whose
entry cannot be written (the database went away between the two) is logged, not undone,
and still answered as done: it was. GET routes are left exactly as they were (no cost).

What a route changes is read once, from its path, when the route is built: the type is the
collection's name in the singular (`/api/v2/status-pages/{id}` → `status_page`), the subject
the id in the path, or for a creation the `data.id` of the answer.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import orjson
from fastapi import Request
from fastapi.responses import Response
from fastapi.routing import APIRoute
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.http.deps import PRINCIPAL, request_sessions
from watchpost.teams.service import Principal

log = logging.getLogger(__name__)

WRITES: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})
PAST: Final = {
    "acknowledge": "acknowledged",
    "resolve": "resolved",
    "reopen": "reopened",
    "test": "tested",
    "retry": "retried",
    "rotate-secret": "secret_rotated",
}
"""An action route's last path word, as the audit log says it was done."""
NAMED_BY: Final = ("name", "pronounceable_name", "title", "url", "email")
"""The attribute of an answered object that names it in the log, the first one it has."""


@dataclass(frozen=True)
class Change:
    """What a write route does: `<type>.<done>` to the object whose id is the path
    parameter `id_param` (None: the created object's id, in the answer)."""

    type: str
    done: str
    id_param: str | None


@dataclass(frozen=True)
class ApiWrite:
    """One successful write of a token, as the audit log records it."""

    team_id: int
    token_id: int
    token_prefix: str
    address: str | None
    action: str  # <type>.<done>
    subject_type: str
    subject_id: int | None
    subject: str | None
    request: str  # "PATCH /api/v2/monitors/5"
    at: datetime


Recorder = Callable[[AsyncSession, ApiWrite], Awaitable[None]]
"""Adds an ApiWrite's entry in the session's transaction."""


def _singular(segment: str) -> str:
    word = segment.replace("-", "_")
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def change_of(path: str, methods: set[str], status_code: int | None) -> Change | None:
    """What a route of path and methods changes (None: it changes nothing, a GET)."""
    method = next((m for m in sorted(methods) if m in WRITES), None)
    if method is None:
        return None
    parts = [p for p in path.split("/") if p]
    last = parts[-1]
    if last.startswith("{"):  # .../things/{id}
        done = {"DELETE": "deleted"}.get(method, "updated")
        return Change(_singular(parts[-2]), done, last.strip("{}"))
    if method == "POST" and status_code != 201 and len(parts) >= 3 and parts[-2].startswith("{"):
        return Change(_singular(parts[-3]), PAST.get(last, last.replace("-", "_")), parts[-2][1:-1])
    done = {"POST": "created", "DELETE": "deleted"}.get(method, "updated")
    return Change(_singular(last), done, None)


def _answered(response: Response) -> dict[str, Any]:
    """The answer's `data` object (empty when it has none)."""
    body = getattr(response, "body", b"")
    if not body or not response.headers.get("content-type", "").startswith("application/json"):
        return {}
    try:
        data = orjson.loads(body).get("data")
    except (orjson.JSONDecodeError, AttributeError):
        return {}
    return data if isinstance(data, dict) else {}


def _subject(data: dict[str, Any]) -> str | None:
    attributes = data.get("attributes")
    if not isinstance(attributes, dict):
        return None
    for name in NAMED_BY:
        value = attributes.get(name)
        if isinstance(value, str) and value:
            return value
    return None


async def _record(request: Request, response: Response, change: Change, recorder: Recorder) -> None:
    caller: Principal | None = request.scope.get(PRINCIPAL)
    if caller is None:
        return
    data = _answered(response)
    raw_id = request.path_params.get(change.id_param) if change.id_param else data.get("id")
    write = ApiWrite(
        team_id=caller.team_id,
        token_id=caller.token_id,
        token_prefix=caller.prefix,
        address=request.client.host if request.client else None,
        action=f"{change.type}.{change.done}",
        subject_type=change.type,
        subject_id=int(raw_id) if isinstance(raw_id, str) and raw_id.isdigit() else None,
        subject=_subject(data),
        request=f"{request.method} {request.url.path}",
        at=request.app.state.ctx.clock.now(),
    )
    sessions = request_sessions(request)
    try:
        await sessions.close()  # the endpoint is done with its sessions: one connection at a time
        db = await sessions.write()
        async with db.begin():
            await recorder(db, write)
    except SQLAlchemyError:
        log.exception("audit entry of %s not written", write.request)


def audited_route(recorder: Recorder) -> type[APIRoute]:
    """The class of the API's routes: a route whose successful writes recorder records."""

    class AuditedRoute(APIRoute):
        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            handler = super().get_route_handler()
            change = change_of(self.path, self.methods or set(), self.status_code)
            if change is None:
                return handler

            async def handle(request: Request) -> Response:
                response = await handler(request)
                if 200 <= response.status_code < 300:
                    await _record(request, response, change, recorder)
                return response

            return handle

    return AuditedRoute
