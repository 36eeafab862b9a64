"""Probe tokens as the probe protocol signs in with them: `authenticate` finds the location of
an active `wpp_` token and records its use at most once a minute."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from watchpost.clock import FrozenClock
from watchpost.locations import tokens
from watchpost.locations.models import ProbeToken
from watchpost.probing import service


async def _authenticate(app: FastAPI, raw: str) -> str | None:
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        location = await tokens.authenticate(session, raw, ctx.clock.now())
        return None if location is None else location.name


async def _last_used(app: FastAPI) -> object:
    async with app.state.ctx.db.read_sessions() as session:
        return await session.scalar(select(ProbeToken.last_used_at))


async def test_authenticate_records_use_once_a_minute(app: FastAPI, clock: FrozenClock) -> None:
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        location = await service.create_location(
            session, name="eu-west", region="eu", now=clock.now()
        )
        raw = await tokens.create_token(session, location=location, name=None, now=clock.now())
    assert await _last_used(app) is None
    first = clock.now()
    assert await _authenticate(app, raw) == "eu-west"
    assert await _last_used(app) == first
    clock.advance(59)
    assert await _authenticate(app, raw) == "eu-west"
    assert await _last_used(app) == first
    clock.advance(1)
    assert await _authenticate(app, raw) == "eu-west"
    assert await _last_used(app) == clock.now()
    for wrong in ("", "wpp_", raw + "x", raw[4:], "wp_" + raw[4:], "wpp_" + "a" * 600):
        assert await _authenticate(app, wrong) is None, wrong
    async with ctx.db.write_sessions() as session, session.begin():
        await tokens.revoke(session, prefix=raw[:12], now=clock.now())
    assert await _authenticate(app, raw) is None
