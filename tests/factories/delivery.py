"""Alert delivery in tests: a real HTTP receiver (aiohttp) that records, fails on purpose and
delays; delivery workers on the test app; outgoing webhooks made through the API."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import orjson
from aiohttp import web
from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api, data
from watchpost.clock import FrozenClock
from watchpost.delivery import sending
from watchpost.delivery.models import Delivery, DeliveryEvent
from watchpost.delivery.worker import Deliverer
from watchpost.settings import Settings

WEBHOOKS = "/api/v2/outgoing-webhooks"


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return orjson.loads(self.body)


@dataclass
class Answer:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str = "ok"
    delay: float = 0.0


@dataclass
class Receiver:
    """A local webhook receiver: records every request; answers with the queued answers of
    its path in turn (then 200)."""

    port: int = 0
    received: list[Received] = field(default_factory=list)
    answers: dict[str, list[Answer]] = field(default_factory=dict)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    """Set by every request (clear it to wait for the next)."""

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def answer(self, path: str, *answers: Answer) -> None:
        self.answers.setdefault(path, []).extend(answers)

    def at(self, path: str = "/hook") -> list[Received]:
        return [request for request in self.received if request.path == path]


@asynccontextmanager
async def receiver() -> AsyncIterator[Receiver]:
    recorder = Receiver()

    async def handle(request: web.Request) -> web.Response:
        recorder.received.append(
            Received(request.method, request.path, dict(request.headers), await request.read())
        )
        recorder.arrived.set()
        queued = recorder.answers.get(request.path)
        answer = queued.pop(0) if queued else Answer()
        if answer.delay:
            await asyncio.sleep(answer.delay)
        return web.Response(status=answer.status, headers=answer.headers, text=answer.body)

    server = web.Application()
    server.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(server, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    recorder.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield recorder
    finally:
        await sending.CLIENT.aclose()
        await runner.cleanup()


def configure(app: FastAPI, **overrides: Any) -> Settings:
    """Change the test app's settings (e.g. delivery_retry_delays='1,1,1')."""
    ctx = app.state.ctx
    settings = Settings.model_validate({**ctx.settings.model_dump(), **overrides})
    ctx.settings = settings
    return settings


def deliverer_of(app: FastAPI, owner: str = "deliverer-a") -> Deliverer:
    return Deliverer(app.state.ctx, owner=owner)


def advance(app: FastAPI, seconds: float) -> None:
    clock = app.state.ctx.clock
    assert isinstance(clock, FrozenClock)
    clock.advance(timedelta(seconds=seconds))


async def create_webhook(api: Api, url: str, **attributes: Any) -> dict[str, Any]:
    """An outgoing webhook (incident_change with every on_incident_* flag unless told)."""
    body: dict[str, Any] = {"url": url, "trigger_type": "incident_change", **attributes}
    if body["trigger_type"] == "incident_change":
        for flag in ("started", "acknowledged", "resolved"):
            body.setdefault(f"on_incident_{flag}", True)
    return data(await api.post(WEBHOOKS, body), 201)


async def deliveries(app: FastAPI) -> list[Delivery]:
    async with app.state.ctx.db.read_sessions() as session:
        return list(await session.scalars(select(Delivery).order_by(Delivery.id)))


async def events(app: FastAPI) -> list[DeliveryEvent]:
    async with app.state.ctx.db.read_sessions() as session:
        return list(await session.scalars(select(DeliveryEvent).order_by(DeliveryEvent.id)))
