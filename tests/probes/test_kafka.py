"""Kafka probe against an in-test broker speaking the Kafka wire protocol.

No Kafka broker can be installed here. The in-test broker answers exactly what the probe
sends: ApiVersions (v0) and Metadata (v1, as negotiated), each a size-prefixed frame with
the correlation id, the bodies encoded with aiokafka's own protocol classes.
"""

from __future__ import annotations

import asyncio
import struct

from aiokafka.protocol.admin import ApiVersionResponse_v0  # type: ignore[import-untyped]
from aiokafka.protocol.metadata import MetadataResponse_v1  # type: ignore[import-untyped]

from tests.factories.servers import SHORT_TIMEOUT, TIMEOUT, free_port, silent_server, tcp_server
from watchpost.probes.targets.kafka import probe
from watchpost.probes.targets.settings import TargetSettings

API_VERSIONS, METADATA = 18, 3


def target(port: int, **changes: object) -> TargetSettings:
    fields: dict[str, object] = {
        "kind": "kafka",
        "host": "127.0.0.1",
        "port": port,
        "service": "kafka",
    }
    return TargetSettings(**{**fields, **changes})  # type: ignore[arg-type]


class Broker:
    """Answers ApiVersions and Metadata; remembers (api_key, api_version) of each request."""

    def __init__(self) -> None:
        self.requests: list[tuple[int, int]] = []

    async def __call__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            (size,) = struct.unpack(">i", await reader.readexactly(4))
            frame = await reader.readexactly(size)
            api_key, api_version, correlation_id = struct.unpack(">hhi", frame[:8])
            self.requests.append((api_key, api_version))
            if api_key == API_VERSIONS:
                body = ApiVersionResponse_v0(
                    error_code=0, api_versions=[(API_VERSIONS, 0, 0), (METADATA, 0, 1)]
                ).encode()
            elif api_key == METADATA:
                port = writer.get_extra_info("sockname")[1]
                body = MetadataResponse_v1(
                    brokers=[(1, "127.0.0.1", port, None), (2, "127.0.0.1", port, None)],
                    controller_id=1,
                    topics=[
                        (0, "orders", False, [(0, 0, 1, [1, 2], [1, 2])]),
                        (0, "payments", False, []),
                        (0, "__consumer_offsets", True, []),
                    ],
                ).encode()
            else:
                raise AssertionError(f"unexpected request {api_key}")
            answer = struct.pack(">i", correlation_id) + body
            writer.write(struct.pack(">i", len(answer)) + answer)
            await writer.drain()


async def test_metadata_counts_brokers_and_topics() -> None:
    broker = Broker()
    async with tcp_server(broker) as port:
        result = await probe(target(port), timeout=TIMEOUT)
    assert result.ok, result.error
    assert broker.requests == [(API_VERSIONS, 0), (METADATA, 1)]
    assert result.metrics == {"brokers": 2.0, "topics": 2.0}  # __consumer_offsets is internal


async def test_listen_ip_is_the_address_connected_to() -> None:
    async with tcp_server(Broker()) as port:
        settings = target(port, host="no-such-host.invalid", listen_ip="127.0.0.1")
        result = await probe(settings, timeout=TIMEOUT)
    assert result.ok, result.error


async def test_a_closed_port_is_refused() -> None:
    port = free_port()
    result = await probe(target(port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"connection refused by 127.0.0.1:{port} (nothing listens on that port?)"


async def test_a_silent_broker_times_out() -> None:
    async with silent_server() as port:
        result = await probe(target(port), timeout=SHORT_TIMEOUT)
    assert not result.ok
    assert result.error == f"timed out after {SHORT_TIMEOUT:g} s waiting for 127.0.0.1:{port}"
