"""Kafka: one broker, ApiVersions then a Metadata request (all topics).

The broker is {listen_ip or host}:{port or 9092}; metrics are the cluster's broker and
topic counts as that broker sees them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import aiokafka.errors  # type: ignore[import-untyped]
from aiokafka.conn import create_conn  # type: ignore[import-untyped]
from aiokafka.protocol.metadata import MetadataRequest  # type: ignore[import-untyped]

from watchpost import outbound
from watchpost.probes.base import ProbeResult
from watchpost.probes.errors import first_line
from watchpost.probes.targets.common import Reading, run_check, service_address

if TYPE_CHECKING:
    from watchpost.probes.targets.settings import TargetSettings

DEFAULT_PORT: Final = 9092


async def probe(settings: TargetSettings, *, timeout: float) -> ProbeResult:
    address = service_address(settings, DEFAULT_PORT)

    async def check() -> Reading:
        conn = await create_conn(
            await outbound.reachable_address(address.host, address.port),
            address.port,
            client_id="watchpost-probe",
            request_timeout_ms=int((timeout + 1) * 1000),
        )
        try:
            metadata = await conn.send(MetadataRequest(topics=None))
        finally:
            conn.close()
        topics = [topic for topic in metadata.topics if not _internal(topic)]
        return Reading(
            metrics={"brokers": float(len(metadata.brokers)), "topics": float(len(topics))}
        )

    def explain(exc: Exception) -> str | None:
        if isinstance(exc, aiokafka.errors.KafkaError) and not isinstance(
            exc, aiokafka.errors.KafkaConnectionError
        ):
            return f"Kafka at {address}: {first_line(exc)}"
        return None

    return await run_check(settings, timeout=timeout, address=address, check=check, explain=explain)


def _internal(topic: tuple[object, ...]) -> bool:
    """Kafka's internal topics (__consumer_offsets, __transaction_state) start with __."""
    name = topic[1]
    return isinstance(name, str) and name.startswith("__")
