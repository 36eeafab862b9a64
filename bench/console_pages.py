"""The console's pages over HTTP for bench/console_bench.py: the app built on the bench's
database, a person signed in, and each page requested through the app in-process (httpx's
ASGI transport: the whole server stack, middleware included, without a socket). Beside them
the same server's bare ceiling: `GET /healthz` through the same stack (one `SELECT 1`)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from watchpost.app import build_app
from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.db.session import Database
from watchpost.people import accounts
from watchpost.settings import Settings
from watchpost.teams.models import Team

PASSWORD = "bench password, not a secret"


async def signed_in_client(url: str, team_id: int, now: datetime) -> httpx.AsyncClient:
    """A client of the app on the database at url, signed in as an owner of the team."""
    folder = Path(tempfile.mkdtemp(prefix="console-pages-"))
    settings = Settings(database_url=url, data_dir=folder, secret_key="bench key " * 4)
    ctx = AppContext.build(settings, FrozenClock(now))
    app = build_app(ctx)
    async with ctx.db.write_sessions() as session, session.begin():
        team = await session.get(Team, team_id)
        assert team is not None
        user, _ = await accounts.add_person(
            session, team=team, email="bench@example.com", name="Bench", role="owner", now=now
        )
        await accounts.set_password(session, user, PASSWORD, now)
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://bench.example"
    )
    answer = await client.post("/login", data={"email": "bench@example.com", "password": PASSWORD})
    assert answer.status_code == 303, answer.text[:300]
    return client


def page(client: httpx.AsyncClient, path: str, sizes: list[int]) -> Callable[[], Awaitable[Any]]:
    """A call that GETs path (200 expected) and notes the body's size."""

    async def get() -> None:
        answer = await client.get(path)
        assert answer.status_code == 200, f"{path}: {answer.status_code}"
        sizes.append(len(answer.content))

    return get


async def close(client: httpx.AsyncClient) -> None:
    """Close the client and remove the app's data folder (signed_in_client made it)."""
    folder = _context_of(client).settings.data_dir
    await client.aclose()
    shutil.rmtree(folder, ignore_errors=True)


def _context_of(client: httpx.AsyncClient) -> AppContext:
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport)
    app: Any = transport.app
    ctx: AppContext = app.state.ctx
    return ctx


def database_of(client: httpx.AsyncClient) -> Database:
    return _context_of(client).db
