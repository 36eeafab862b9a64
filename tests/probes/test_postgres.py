"""PostgreSQL probe against the machine's server (127.0.0.1:5432, trust authentication).

The local server trusts every connection from 127.0.0.1, so a wrong password cannot be
refused by it: authentication failure is tested with a role that does not exist (real
server) and with a wrong password against a small in-test server that speaks the
PostgreSQL wire protocol (startup, cleartext password request, ErrorResponse 28P01).
"""

from __future__ import annotations

import asyncio
import struct

import pytest

from tests.factories.api import TEST_PASSWORD
from tests.factories.servers import (
    POSTGRES,
    SHORT_TIMEOUT,
    TIMEOUT,
    free_port,
    require_tcp,
    silent_server,
    tcp_server,
)
from watchpost.probes.targets.postgres import probe
from watchpost.probes.targets.settings import TargetSettings


def target(**changes: object) -> TargetSettings:
    fields: dict[str, object] = {
        "kind": "postgres",
        "host": POSTGRES[0],
        "port": POSTGRES[1],
        "username": "root",
        "ssl_mode": "disable",
    }
    return TargetSettings(**{**fields, **changes})  # type: ignore[arg-type]


@pytest.fixture
def postgres() -> None:
    require_tcp("PostgreSQL", POSTGRES)


@pytest.mark.usefixtures("postgres")
async def test_reads_version_and_database_totals() -> None:
    result = await probe(target(), timeout=TIMEOUT)
    assert result.ok, result.error
    assert result.error is None
    assert result.metrics["numbackends"] >= 1
    assert result.metrics["xact_commit"] >= 0
    assert result.details["server_version"][:2].isdigit()
    assert result.details["tls"] == "off"


@pytest.mark.usefixtures("postgres")
async def test_an_unknown_role_fails_authentication() -> None:
    result = await probe(target(username="watchpost_no_such_role"), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == (
        "authentication failed: role watchpost_no_such_role does not exist on 127.0.0.1:5432"
    )


@pytest.mark.usefixtures("postgres")
async def test_tls_required_but_not_offered() -> None:
    ssl_enabled = await _server_setting("ssl")
    if ssl_enabled == "on":
        pytest.skip("the local PostgreSQL offers TLS: the refusal cannot be shown against it")
    result = await probe(target(ssl_mode="require"), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == "TLS required (ssl_mode=require) but 127.0.0.1:5432 does not offer TLS"


async def test_a_wrong_password_fails_without_echoing_it() -> None:
    received: list[bytes] = []

    async def server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:  # SSL / GSS encryption requests get "N", then the startup message
            length, code = struct.unpack("!ii", await reader.readexactly(8))
            await reader.readexactly(length - 8)
            if code in (80877103, 80877104):
                writer.write(b"N")
                continue
            break
        writer.write(b"R" + struct.pack("!ii", 8, 3))  # AuthenticationCleartextPassword
        await writer.drain()
        kind, length = struct.unpack("!ci", await reader.readexactly(5))
        received.append(kind + await reader.readexactly(length - 4))
        fields = b'SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed for user "watcher"\0\0'
        writer.write(b"E" + struct.pack("!i", 4 + len(fields)) + fields)
        await writer.drain()

    async with tcp_server(server) as port:
        settings = target(port=port, username="watcher", password=TEST_PASSWORD)
        result = await probe(settings, timeout=TIMEOUT)
    assert received and received[0].startswith(b"p")
    assert not result.ok
    assert result.error == f"authentication failed for user watcher on 127.0.0.1:{port}"


async def test_a_closed_port_is_refused() -> None:
    port = free_port()
    result = await probe(target(port=port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"connection refused by 127.0.0.1:{port} (nothing listens on that port?)"


async def test_a_silent_server_times_out() -> None:
    async with silent_server() as port:
        result = await probe(target(port=port), timeout=SHORT_TIMEOUT)
    assert not result.ok
    assert result.error == f"timed out after {SHORT_TIMEOUT:g} s waiting for 127.0.0.1:{port}"


async def _server_setting(name: str) -> str:
    import psycopg

    async with await psycopg.AsyncConnection.connect(
        host=POSTGRES[0], port=POSTGRES[1], dbname="postgres", user="root"
    ) as conn:
        cursor = await conn.execute("SELECT current_setting(%s)", (name,))
        row = await cursor.fetchone()
    assert row is not None
    return str(row[0])
