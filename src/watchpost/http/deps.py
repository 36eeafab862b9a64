"""Request-scoped dependencies: the app context, database sessions, the calling team."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.http.errors import Unauthorized
from watchpost.teams.service import Principal, authenticate


async def app_context(request: Request) -> AppContext:
    ctx: AppContext = request.app.state.ctx
    return ctx


Context = Annotated[AppContext, Depends(app_context)]


async def read_session(ctx: Context) -> AsyncIterator[AsyncSession]:
    async with ctx.db.read_sessions() as session:
        yield session


async def write_session(ctx: Context) -> AsyncIterator[AsyncSession]:
    """A session whose transactions take the write lock up front (SQLite).

    Endpoints wrap their work in `async with db.begin():` so the commit happens, and
    can fail, before the response is built.
    """
    async with ctx.db.write_sessions() as session:
        yield session


ReadDb = Annotated[AsyncSession, Depends(read_session)]
WriteDb = Annotated[AsyncSession, Depends(write_session)]


async def current_principal(request: Request, ctx: Context) -> Principal:
    """The team of the bearer token; 401 with one body for every way it can be wrong."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 512:
        raise Unauthorized()
    async with ctx.db.engine.connect() as connection:  # no ORM session needed for one row
        principal = await authenticate(connection, token)
    if principal is None:
        raise Unauthorized()
    return principal


Caller = Annotated[Principal, Depends(current_principal)]
