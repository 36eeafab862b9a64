"""A stored secret goes only where it was set for: a new destination needs the secret again.

Without that rule anyone holding a token could PATCH a postgres target's port, a monitor's
url or a webhook's url to a server of their own and read the stored password there, though
the API never returns it. The capture tests prove it end to end: a real TCP server records
every byte a check sends, and the stored secret never arrives.
"""

from __future__ import annotations

import asyncio
import base64
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi import FastAPI

from tests.factories.api import TEST_API_KEY, TEST_PASSWORD, Api, data, errors
from tests.factories.engine import engine_of, load
from tests.factories.monitors import MONITORS, create_monitor
from tests.factories.objects import create_collector, create_target, target_body
from tests.factories.servers import free_port, tcp_server
from watchpost.collectors.models import CollectorTarget
from watchpost.monitors.models import Monitor
from watchpost.probes.http import CLIENT
from watchpost.webhooks.models import CustomWebhookTemplate, OutgoingWebhook

WEBHOOKS = "/api/v2/outgoing-webhooks"
TEMPLATE = "custom_webhook_template_attributes"
RESEND = "must be sent again when the destination changes"

# --------------------------------------------------------------------- capture servers


@dataclass
class Capture:
    """Every byte a loopback server received, over all connections."""

    port: int = 0
    connections: int = 0
    received: bytearray = field(default_factory=bytearray)

    def saw(self, secret: str | bytes) -> bool:
        return (secret.encode() if isinstance(secret, str) else secret) in self.received


Answer = Callable[[asyncio.StreamReader, asyncio.StreamWriter, Capture], Awaitable[None]]


async def _http_answer(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, capture: Capture
) -> None:
    while line := await reader.readline():
        capture.received += line
        if not line.strip():
            break
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
    await writer.drain()


async def _postgres_answer(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, capture: Capture
) -> None:
    """Reads the startup message and asks for the password in clear text, as a trap would."""
    while True:
        head = await reader.readexactly(8)
        length, code = struct.unpack("!ii", head)
        capture.received += head + await reader.readexactly(length - 8)
        if code not in (80877103, 80877104):  # SSLRequest, GSSENCRequest: "no", go on
            break
        writer.write(b"N")
        await writer.drain()
    writer.write(b"R" + struct.pack("!ii", 8, 3))  # AuthenticationCleartextPassword
    await writer.drain()
    capture.received += await reader.read(4096)


@asynccontextmanager
async def capture_server(answer: Answer) -> AsyncIterator[Capture]:
    capture = Capture()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        capture.connections += 1
        await answer(reader, writer, capture)

    async with tcp_server(handle) as port:
        capture.port = port
        try:
            yield capture
        finally:
            await CLIENT.aclose()


def basic_auth(user: str, password: str) -> bytes:
    return base64.b64encode(f"{user}:{password}".encode())


# --------------------------------------------------------------------------- helpers


async def new_target(api: Api, kind: str, **fields: Any) -> str:
    owner = await create_collector(api)
    target = await create_target(api, owner["id"], target_body(kind, **fields))
    return f"/api/v1/collectors/{owner['id']}/targets/{target['id']}"


def row_id(url: str) -> int:
    return int(url.rsplit("/", 1)[1])


def columns(row: Any) -> dict[str, Any]:
    return {column.key: getattr(row, column.key) for column in row.__table__.columns}


def assert_resend(response: Any, secrets: list[str], changed: str) -> None:
    messages, fields = errors(response)
    assert fields == [secret.split(".")[0] for secret in secrets], messages
    assert messages == [f"{secret} {RESEND} ({changed})" for secret in secrets]


# ---------------------------------------------------------------- the rules, by the API

POSTGRES = {"host": "db.internal", "port": 5432, "ssl_mode": "disable", "password": TEST_PASSWORD}
ELASTIC = {
    "host": "search.internal",
    "port": 9200,
    "scheme": "https",
    "username": "watcher",
    "password": TEST_PASSWORD,
    "api_key": TEST_API_KEY,
}
# A new value for every destination field a kind with secrets takes.
TARGET_CHANGES: list[tuple[str, dict[str, Any], str, Any, list[str]]] = [
    ("postgres", POSTGRES, "host", "elsewhere.example", ["password"]),
    ("postgres", POSTGRES, "host", "10.0.0.99", ["password"]),
    ("postgres", POSTGRES, "port", 5433, ["password"]),
    ("mysql", {"port": 3306, "tls": "true", "password": TEST_PASSWORD}, "port", 3307, ["password"]),
    ("redis", {"port": 6379, "password": TEST_PASSWORD}, "host", "cache.example", ["password"]),
    ("mongodb", {"port": 27017, "password": TEST_PASSWORD}, "port", 27018, ["password"]),
    ("memcached", {"port": 11211, "password": TEST_PASSWORD}, "host", "mc.example", ["password"]),
    ("elasticsearch", ELASTIC, "host", "evil.example", ["password", "api_key"]),
    ("elasticsearch", ELASTIC, "port", 9201, ["password", "api_key"]),
    ("elasticsearch", ELASTIC, "scheme", "http", ["password", "api_key"]),
    ("elasticsearch", ELASTIC, "scheme", None, ["password", "api_key"]),  # null = http
    ("elasticsearch", {**ELASTIC, "password": None}, "port", 9201, ["api_key"]),
]


@pytest.mark.parametrize(("kind", "fields", "name", "value", "secrets"), TARGET_CHANGES)
async def test_a_target_destination_change_needs_its_secrets_again(
    api: Api,
    app: FastAPI,
    kind: str,
    fields: dict[str, Any],
    name: str,
    value: Any,
    secrets: list[str],
) -> None:
    url = await new_target(api, kind, **fields)
    before = columns(await load(app, CollectorTarget, row_id(url)))

    changed = name
    assert_resend(await api.patch(url, {name: value}), secrets, changed)
    assert_resend(await api.patch(url, {name: value, "username": "x"}), secrets, changed)
    partial = {name: value, secrets[0]: TEST_PASSWORD}
    if len(secrets) > 1:
        assert_resend(await api.patch(url, partial), secrets[1:], changed)
    assert columns(await load(app, CollectorTarget, row_id(url))) == before, "nothing changed"

    resent = {name: value, **dict.fromkeys(secrets, TEST_PASSWORD + "-again")}
    data(await api.patch(url, resent))
    row = await load(app, CollectorTarget, row_id(url))
    for secret in secrets:
        stored = getattr(row, f"{secret}_encrypted")
        assert app.state.ctx.box.decrypt(stored) == TEST_PASSWORD + "-again"


async def test_removing_the_secret_or_keeping_the_destination_is_fine(
    api: Api, app: FastAPI
) -> None:
    url = await new_target(api, "postgres", **POSTGRES)
    same = {"host": "DB.internal", "port": 5432, "ssl_mode": "require", "username": "other"}
    data(await api.patch(url, same))  # same destination (names are case-insensitive)
    data(await api.patch(url, {"host": "new.example", "password": None}))
    assert (await load(app, CollectorTarget, row_id(url))).password_encrypted is None
    # Nothing stored, nothing to redirect.
    data(await api.patch(url, {"host": "again.example", "port": 6543}))


async def test_a_field_the_kind_does_not_take_is_no_destination(api: Api) -> None:
    url = await new_target(api, "postgres", **POSTGRES)
    messages, fields = errors(await api.patch(url, {"service": "x"}))
    assert fields == ["service"], messages


MONITOR_CHANGES: list[tuple[str, str | None]] = [
    ("https://other.example/health", "url"),  # host
    ("https://app.example:8443/health", "url"),  # port
    ("http://app.example/health", "url"),  # scheme
    ("https://APP.example/other/path?x=1", None),  # same origin: the same server
    ("https://app.example:443/health", None),
]


@pytest.mark.parametrize(("new_url", "changed"), MONITOR_CHANGES)
async def test_a_monitor_url_change_needs_its_auth_password_again(
    api: Api, app: FastAPI, new_url: str, changed: str | None
) -> None:
    monitor = await create_monitor(
        api, url="https://app.example/health", auth_username="watcher", auth_password=TEST_PASSWORD
    )
    path = f"{MONITORS}/{monitor['id']}"
    before = columns(await load(app, Monitor, monitor["id"]))
    response = await api.patch(path, {"url": new_url})
    if changed is None:
        data(response)
        return
    assert_resend(response, ["auth_password"], changed)
    assert columns(await load(app, Monitor, monitor["id"])) == before, "nothing changed"
    data(await api.patch(path, {"url": new_url, "auth_password": TEST_PASSWORD}))
    data(await api.patch(path, {"url": "https://third.example", "auth_password": None}))
    data(await api.patch(path, {"url": "https://fourth.example"}))  # nothing stored any more


async def test_a_monitor_without_a_password_moves_freely(api: Api) -> None:
    monitor = await create_monitor(api, url="https://app.example", auth_username="watcher")
    data(await api.patch(f"{MONITORS}/{monitor['id']}", {"url": "https://other.example"}))


async def _webhook(api: Api, template: dict[str, Any] | None) -> str:
    body: dict[str, Any] = {"url": "https://hooks.example/in", "trigger_type": "incident_change"}
    if template is not None:
        body[TEMPLATE] = template
    return f"{WEBHOOKS}/{data(await api.post(WEBHOOKS, body), 201)['id']}"


async def _webhook_rows(app: FastAPI, url: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    hook = await load(app, OutgoingWebhook, row_id(url))
    template_id = hook.custom_webhook_template_id
    template = await load(app, CustomWebhookTemplate, template_id) if template_id else None
    return columns(hook), columns(template) if template is not None else None


async def test_a_webhook_url_change_needs_its_auth_password_again(api: Api, app: FastAPI) -> None:
    secret = f"{TEMPLATE}.auth_password"
    url = await _webhook(api, {"auth_username": "bot", "auth_password": TEST_PASSWORD})
    before = await _webhook_rows(app, url)
    for body in (
        {"url": "https://attacker.example/in"},
        {"url": "http://hooks.example/in"},
        {"url": "https://hooks.example:8443/in"},
        {"url": "https://attacker.example/in", TEMPLATE: {"auth_username": "bot2"}},
    ):
        assert_resend(await api.patch(url, body), [secret], "url")
    assert await _webhook_rows(app, url) == before, "nothing changed"

    data(await api.patch(url, {"url": "https://hooks.example/other-path"}))  # same origin
    data(await api.patch(url, {"url": "https://a.example/in", TEMPLATE: {"auth_password": "p2"}}))
    data(await api.patch(url, {"url": "https://b.example/in", TEMPLATE: {"auth_password": None}}))
    data(await api.patch(url, {"url": "https://c.example/in"}))  # nothing stored any more


async def test_removing_a_webhook_template_takes_its_secret_along(api: Api) -> None:
    url = await _webhook(api, {"auth_password": TEST_PASSWORD})
    data(await api.patch(url, {"url": "https://new.example/in", TEMPLATE: None}))
    url = await _webhook(api, {"auth_username": "bot"})  # a template without a password
    data(await api.patch(url, {"url": "https://new.example/in"}))


def test_the_table_names_only_real_fields() -> None:
    from watchpost.collectors.target_kinds import KIND_FIELDS, WRITE_ONLY_FIELDS
    from watchpost.destinations import SECRET_RULES
    from watchpost.monitors.schemas import MonitorFields
    from watchpost.webhooks.schemas import WebhookTemplateInput, WebhookUpdate

    targets = SECRET_RULES["collector_target"]
    assert set(targets.secrets) == WRITE_ONLY_FIELDS
    assert set(targets.destination) <= {"host", *KIND_FIELDS}
    monitors = SECRET_RULES["monitor"]
    assert set((*monitors.secrets, *monitors.destination)) <= set(MonitorFields.model_fields)
    hooks = SECRET_RULES["outgoing_webhook"]
    assert hooks.secrets == (f"{TEMPLATE}.auth_password",)
    assert "auth_password" in WebhookTemplateInput.model_fields
    assert set(hooks.destination) <= set(WebhookUpdate.model_fields)


# ------------------------------------------------------- capture: the secret never arrives


async def test_a_postgres_password_never_reaches_a_new_port(api: Api, app: FastAPI) -> None:
    url = await new_target(
        api, "postgres", host="127.0.0.1", port=free_port(), ssl_mode="disable",
        username="watcher", password=TEST_PASSWORD,
    )  # fmt: skip
    async with capture_server(_postgres_answer) as trap:
        response = await api.patch(url, {"port": trap.port})
        await engine_of(app).tick()
        assert not trap.saw(TEST_PASSWORD), "the stored password reached the new port"
        assert response.status_code == 422, response.text
        assert trap.connections == 0
        assert (await load(app, CollectorTarget, row_id(url))).last_error is not None

        # The trap is real: a password sent with the new port does arrive there.
        data(await api.patch(url, {"port": trap.port, "password": TEST_PASSWORD + "-new"}))
        await engine_of(app).tick()
        assert trap.saw(TEST_PASSWORD + "-new")


async def test_an_elasticsearch_api_key_never_reaches_a_new_host(api: Api, app: FastAPI) -> None:
    url = await new_target(
        api, "elasticsearch", host="127.0.0.1", port=free_port(), scheme="http",
        api_key=TEST_API_KEY,
    )  # fmt: skip
    async with capture_server(_http_answer) as trap:
        response = await api.patch(url, {"host": "localhost", "port": trap.port})
        await engine_of(app).tick()
        assert not trap.saw(TEST_API_KEY), "the stored API key reached the new host"
        assert response.status_code == 422, response.text
        assert trap.connections == 0

        body = {"host": "localhost", "port": trap.port, "api_key": TEST_API_KEY + "-new"}
        data(await api.patch(url, body))
        await engine_of(app).tick()
        assert trap.saw(f"ApiKey {TEST_API_KEY}-new")


async def test_a_monitor_password_never_reaches_a_new_url(api: Api, app: FastAPI) -> None:
    monitor = await create_monitor(
        api,
        url=f"http://127.0.0.1:{free_port()}/health",
        auth_username="watcher",
        auth_password=TEST_PASSWORD,
    )
    path = f"{MONITORS}/{monitor['id']}"
    async with capture_server(_http_answer) as trap:
        response = await api.patch(path, {"url": f"http://127.0.0.1:{trap.port}/health"})
        await engine_of(app).tick()
        assert not trap.saw(basic_auth("watcher", TEST_PASSWORD)), "the password reached it"
        assert response.status_code == 422, response.text
        assert trap.connections == 0

        new = {"url": f"http://127.0.0.1:{trap.port}/h", "auth_password": TEST_PASSWORD + "-new"}
        data(await api.patch(path, new))
        await engine_of(app).tick()
        assert trap.saw(basic_auth("watcher", TEST_PASSWORD + "-new"))
