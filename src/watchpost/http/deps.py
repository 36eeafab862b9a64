"""Request-scoped dependencies: the app context, database sessions, the calling team.

A request's sessions live in a `RequestSessions` kept in the request's scope: opened on first
use, closed by `RequestSessionsMiddleware` when the request is over. Plain async dependencies
and one middleware instead of FastAPI's generator dependencies, whose exit-stack handling cost
more (≈ 45 µs a request) than opening and closing the session itself.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.types import Message, Receive, Scope, Send

from watchpost.context import AppContext
from watchpost.db.session import Database
from watchpost.errors import Unauthorized
from watchpost.http.middleware import HttpMiddleware
from watchpost.http.ratelimit import check_token
from watchpost.teams.service import Principal, authenticate

_SESSIONS = "watchpost.sessions"
_MANAGED = "watchpost.sessions.managed"
PRINCIPAL = "watchpost.principal"
"""Where the request's scope keeps the calling token's Principal (for http/audited.py)."""


async def app_context(request: Request) -> AppContext:
    ctx: AppContext = request.app.state.ctx
    return ctx


Context = Annotated[AppContext, Depends(app_context)]


class RequestSessions:
    """The database sessions of one request.

    A request reads or writes, never both. The token lookup runs on the read session, which a
    reading endpoint then goes on using (one connection, one transaction); an endpoint that
    writes closes it before its write session opens, so a request never holds two connections
    at once (requests holding one while waiting for a second could starve the pool). The read
    session is closed for good then: used again, it raises instead of quietly opening a
    connection that nothing would return to the pool. Before
    its first session a request waits its turn in the database's `admission`, and leaves it
    when its sessions close.
    """

    __slots__ = ("_admitted", "_read", "_write", "db")

    def __init__(self, db: Database) -> None:
        self.db = db
        self._read: AsyncSession | None = None
        self._write: AsyncSession | None = None
        self._admitted = False

    async def _admit(self) -> None:
        if not self._admitted:
            await self.db.admission.acquire()
            self._admitted = True

    async def read(self) -> AsyncSession:
        if self._write is not None:
            raise RuntimeError("a request reads or writes, not both")
        if self._read is None:
            await self._admit()
            self._read = self.db.read_sessions(close_resets_only=False)
        return self._read

    async def write(self) -> AsyncSession:
        """A session whose transactions take the write lock up front (SQLite).

        Endpoints wrap their work in `async with db.begin():` so the commit happens, and
        can fail, before the response is built.
        """
        if self._read is not None:
            read, self._read = self._read, None
            await read.close()
        if self._write is None:
            await self._admit()
            self._write = self.db.write_sessions()
        return self._write

    async def close(self) -> None:
        try:
            for session in (self._read, self._write):
                if session is not None:
                    await session.close()
        finally:
            self._read = self._write = None
            if self._admitted:
                self._admitted = False
                self.db.admission.release()


def request_sessions(request: Request) -> RequestSessions:
    if _MANAGED not in request.scope:  # nothing would close them: refuse to open any
        raise RuntimeError("RequestSessionsMiddleware is not installed in this app")
    state = request.scope.setdefault("state", {})
    sessions: RequestSessions | None = state.get(_SESSIONS)
    if sessions is None:
        sessions = state[_SESSIONS] = RequestSessions(request.app.state.ctx.db)
    return sessions


class RequestSessionsMiddleware(HttpMiddleware):
    """Closes the sessions a request opened once its response starts (the endpoint is done
    with the database by then), or when the request is over (an error included).

    Not later: a list's body (100 to 200 kB) outgrows the transport's write buffer, so
    sending it waits until the client has read it, and a request that held its pooled
    connection meanwhile kept it from the requests queued behind (docs/benchmarks.md,
    "Lists under 50 connections").
    """

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[_MANAGED] = True

        async def release_then_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                await _release(scope)
            await send(message)

        try:
            await self.app(scope, receive, release_then_send)
        except BaseException:
            await _release(scope, failed=True)
            raise
        await _release(scope)


async def _release(scope: Scope, *, failed: bool = False) -> None:
    """Close the request's sessions, if it still has any."""
    sessions: RequestSessions | None = scope.get("state", {}).pop(_SESSIONS, None)
    if sessions is None:
        return
    await sessions.close()
    if not failed:
        # The request used the database and nothing failed: it is reachable (this ends
        # an outage, once; otherwise it costs one attribute read).
        sessions.db.outage.succeeded()


async def read_session(request: Request) -> AsyncSession:
    return await request_sessions(request).read()


async def write_session(request: Request) -> AsyncSession:
    return await request_sessions(request).write()


ReadDb = Annotated[AsyncSession, Depends(read_session)]
WriteDb = Annotated[AsyncSession, Depends(write_session)]


API_TOKEN = HTTPBearer(
    scheme_name="apiToken",
    description="A team's API token (`watchpost token create`): `Authorization: Bearer <token>`.",
    auto_error=False,
)
"""Reads the bearer token and is the OpenAPI's security scheme of every route needing one
(its Authorize button in /docs); our 401 replaces its own."""


async def current_principal(
    request: Request, bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(API_TOKEN)]
) -> Principal:
    """The team of the bearer token; 401 with one body for every way it can be wrong, 429
    when the token has used up its requests of the minute (no query more: keyed by its id)."""
    token = bearer.credentials.strip() if bearer is not None else ""
    if not token or len(token) > 512:
        raise Unauthorized()
    principal = await authenticate(await request_sessions(request).read(), token)
    if principal is None:
        raise Unauthorized()
    check_token(request, principal.token_id)
    request.scope[PRINCIPAL] = principal
    return principal


Caller = Annotated[Principal, Depends(current_principal)]
