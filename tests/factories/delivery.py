"""Alert delivery in tests: a real HTTP receiver (aiohttp) that records, fails on purpose and
delays; a real SMTP server (aiosmtpd); delivery workers on the test app; outgoing webhooks
made through the API; team members."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

import orjson
from aiohttp import web
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api, data
from watchpost.clock import FrozenClock
from watchpost.delivery import sending
from watchpost.delivery.models import Delivery, DeliveryEvent
from watchpost.delivery.worker import Deliverer
from watchpost.incidents.policy_actions import PolicyActions
from watchpost.people.accounts import create_user
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
    return Deliverer(app.state.ctx, incidents=PolicyActions(app.state.ctx.clock), owner=owner)


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


# ------------------------------------------------------------------------------ e-mail


@dataclass
class Mailbox:
    """What a real SMTP server (aiosmtpd) accepted."""

    port: int = 0
    messages: list[EmailMessage] = field(default_factory=list)
    recipients: list[list[str]] = field(default_factory=list)
    """Each message's envelope recipients (RCPT TO), in the order of `messages`."""
    logins: list[tuple[str, str]] = field(default_factory=list)

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if m["To"] == address]


@contextmanager
def smtp_server(*, login: tuple[str, str] | None = None) -> Iterator[Mailbox]:
    """aiosmtpd on a free port, in its own thread (as a mail server is its own process)."""
    box = Mailbox()

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            box.messages.append(BytesParser(policy=policy.default).parsebytes(envelope.content))
            box.recipients.append(list(envelope.rcpt_tos))
            return "250 Message accepted for delivery"

    def authenticate(
        server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any
    ) -> AuthResult:
        pair = (auth_data.login.decode(), auth_data.password.decode())
        box.logins.append(pair)
        return AuthResult(success=login is None or pair == login)

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        box.port = probe.getsockname()[1]
    controller = Controller(
        Handler(),
        hostname="127.0.0.1",
        port=box.port,
        authenticator=authenticate,
        auth_require_tls=False,
        auth_required=login is not None,
    )
    controller.start()
    try:
        yield box
    finally:
        controller.stop()


async def create_member(app: FastAPI, team: str, email: str, name: str = "Ann") -> None:
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        await create_user(session, team_name=team, email=email, name=name, now=ctx.clock.now())
