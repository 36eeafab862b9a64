"""MongoDB: connect (authenticating when credentials are set) and run `hello`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import pymongo.errors
from pymongo import AsyncMongoClient

from watchpost import outbound
from watchpost.probes.base import ProbeResult
from watchpost.probes.errors import Address, first_line
from watchpost.probes.targets.common import Reading, numbers, run_check, tcp_reachable

if TYPE_CHECKING:
    from watchpost.probes.targets.settings import TargetSettings

DEFAULT_PORT: Final = 27017


async def probe(settings: TargetSettings, *, timeout: float) -> ProbeResult:
    address = Address(settings.host, settings.port or DEFAULT_PORT)

    async def check() -> Reading:
        # Server selection would wait out its whole timeout on a refused port or an unknown
        # host, and then word the cause as text: a plain connection first says it at once.
        await tcp_reachable(address)
        credentials: dict[str, Any] = {}
        if settings.username:
            credentials = {"username": settings.username, "password": settings.password or ""}
        limit_ms = int(timeout * 900)  # under the deadline, so pymongo says why it gave up
        client: AsyncMongoClient[dict[str, Any]] = AsyncMongoClient(
            host=await outbound.reachable_address(settings.host, address.port),
            port=address.port,
            directConnection=True,  # this one server, not the replica set it may belong to
            serverSelectionTimeoutMS=limit_ms,
            connectTimeoutMS=limit_ms,
            socketTimeoutMS=limit_ms,
            retryReads=False,
            appname="watchpost-probe",
            **credentials,
        )
        try:
            hello = await client.admin.command("hello")
        finally:
            await client.close()
        metrics = numbers(hello, ("maxWireVersion", "maxBsonObjectSize"))
        details = {"primary": "yes" if hello.get("isWritablePrimary") else "no"}
        if hello.get("setName"):
            details["replica_set"] = str(hello["setName"])
        return Reading(metrics=metrics, details=details)

    def explain(exc: Exception) -> str | None:
        if isinstance(exc, pymongo.errors.OperationFailure) and exc.code == 18:
            return f"authentication failed for user {settings.username} on {address}"
        if isinstance(exc, pymongo.errors.ServerSelectionTimeoutError):
            return _explain_selection(str(exc), address)
        if isinstance(exc, pymongo.errors.PyMongoError):
            return f"MongoDB at {address}: {first_line(exc)}"
        return None

    return await run_check(settings, timeout=timeout, address=address, check=check, explain=explain)


def _explain_selection(text: str, address: Address) -> str:
    # pymongo reports why no server could be selected as text, causes not chained.
    if "Connection refused" in text:
        return f"connection refused by {address} (nothing listens on that port?)"
    if (
        "Name or service not known" in text
        or "nodename nor servname" in text
        or "getaddrinfo" in text
    ):
        return f"cannot resolve host {address.host} (DNS lookup failed)"
    if "SSL" in text or "TLS" in text or "certificate" in text:
        return f"TLS handshake with {address} failed"
    if "timed out" in text:
        return f"no answer from {address} in time"
    return f"MongoDB at {address} could not be reached: {text.split(',', 1)[0]}"
