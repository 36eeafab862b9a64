"""MongoDB probe against an in-test server speaking the MongoDB wire protocol.

No MongoDB server can be installed here. The in-test server answers exactly what the probe's
client sends: the handshake `hello` (OP_QUERY, answered with OP_REPLY), then commands as
OP_MSG (`hello`; `saslStart`, refused with AuthenticationFailed when the test says so;
anything else gets {ok: 1}). Documents are encoded with the `bson` package of pymongo.
"""

from __future__ import annotations

import asyncio
import struct
from datetime import UTC, datetime
from typing import Any

import bson

from tests.factories.api import TEST_PASSWORD
from tests.factories.servers import SHORT_TIMEOUT, TIMEOUT, free_port, silent_server, tcp_server
from watchpost.probes.targets.mongodb import probe
from watchpost.probes.targets.settings import TargetSettings

OP_REPLY, OP_QUERY, OP_MSG = 1, 2004, 2013


def target(port: int, **changes: object) -> TargetSettings:
    fields: dict[str, object] = {"kind": "mongodb", "host": "127.0.0.1", "port": port}
    return TargetSettings(**{**fields, **changes})  # type: ignore[arg-type]


def hello_reply() -> dict[str, Any]:
    return {
        "helloOk": True,
        "ismaster": True,
        "isWritablePrimary": True,
        "maxBsonObjectSize": 16 * 1024 * 1024,
        "maxMessageSizeBytes": 48_000_000,
        "maxWriteBatchSize": 100_000,
        "localTime": datetime.now(UTC),
        "logicalSessionTimeoutMinutes": 30,
        "connectionId": 1,
        "minWireVersion": 0,
        "maxWireVersion": 17,
        "readOnly": False,
        "ok": 1.0,
    }


class MongoServer:
    """Answers the commands of the probe; remembers their names."""

    def __init__(self, *, refuse_auth: bool = False) -> None:
        self.refuse_auth = refuse_auth
        self.commands: list[str] = []

    def answer(self, command: dict[str, Any]) -> dict[str, Any]:
        name = next(iter(command))
        self.commands.append(name)
        if name in ("hello", "isMaster", "ismaster"):
            return hello_reply()
        if name == "saslStart" and self.refuse_auth:
            return {
                "ok": 0.0,
                "errmsg": "Authentication failed.",
                "code": 18,
                "codeName": "AuthenticationFailed",
            }
        return {"ok": 1.0}

    async def __call__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            length, request_id, _, opcode = struct.unpack("<iiii", await reader.readexactly(16))
            body = await reader.readexactly(length - 16)
            if opcode == OP_QUERY:
                collection_end = body.index(b"\0", 4)
                document = bson.decode(body[collection_end + 9 :])
                reply = bson.encode(self.answer(document))
                payload = struct.pack("<iqii", 0, 0, 0, 1) + reply
                writer.write(struct.pack("<iiii", 16 + len(payload), 0, request_id, OP_REPLY))
            elif opcode == OP_MSG:
                assert body[4] == 0, "a single body section is expected"
                size = struct.unpack("<i", body[5:9])[0]
                document = bson.decode(body[5 : 5 + size])
                payload = struct.pack("<I", 0) + b"\0" + bson.encode(self.answer(document))
                writer.write(struct.pack("<iiii", 16 + len(payload), 0, request_id, OP_MSG))
            else:
                raise AssertionError(f"unexpected opcode {opcode}")
            writer.write(payload)
            await writer.drain()


async def test_hello_passes() -> None:
    server = MongoServer()
    async with tcp_server(server) as port:
        result = await probe(target(port), timeout=TIMEOUT)
    assert result.ok, result.error
    assert "hello" in server.commands
    assert result.details["primary"] == "yes"
    assert result.metrics["maxWireVersion"] == 17


async def test_refused_credentials_fail_without_echoing_them() -> None:
    server = MongoServer(refuse_auth=True)
    async with tcp_server(server) as port:
        settings = target(port, username="watcher", password=TEST_PASSWORD)
        result = await probe(settings, timeout=TIMEOUT)
    assert "saslStart" in server.commands
    assert not result.ok
    assert result.error == f"authentication failed for user watcher on 127.0.0.1:{port}"


async def test_a_closed_port_is_refused() -> None:
    port = free_port()
    result = await probe(target(port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"connection refused by 127.0.0.1:{port} (nothing listens on that port?)"


async def test_a_silent_server_times_out() -> None:
    async with silent_server() as port:
        result = await probe(target(port), timeout=SHORT_TIMEOUT)
    assert not result.ok
    assert result.error is not None
    assert result.error in (
        f"timed out after {SHORT_TIMEOUT:g} s waiting for 127.0.0.1:{port}",
        f"no answer from 127.0.0.1:{port} in time",
    )
