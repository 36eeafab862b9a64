"""Redis: AUTH when credentials are set, PING, and a few numbers from INFO."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import redis.asyncio
import redis.exceptions
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from watchpost import outbound
from watchpost.probes.base import ProbeResult
from watchpost.probes.errors import Address, first_line
from watchpost.probes.targets.common import Reading, numbers, run_check

if TYPE_CHECKING:
    from watchpost.probes.targets.settings import TargetSettings

DEFAULT_PORT: Final = 6379
INFO_METRICS: Final = (
    "connected_clients",
    "used_memory",
    "instantaneous_ops_per_sec",
    "blocked_clients",
    "uptime_in_seconds",
)


async def probe(settings: TargetSettings, *, timeout: float) -> ProbeResult:
    address = Address(settings.host, settings.port or DEFAULT_PORT)

    async def check() -> Reading:
        client = redis.asyncio.Redis(
            host=await outbound.reachable_address(settings.host, address.port),
            port=address.port,
            username=settings.username,
            password=settings.password,
            socket_connect_timeout=timeout + 1,
            socket_timeout=timeout + 1,
            retry=Retry(NoBackoff(), 0),  # one attempt: a probe reports, it does not insist
            # No client name: CLIENT SETNAME would need more than a monitoring user's PING + INFO.
        )
        async with client:
            if not await client.ping():
                raise redis.exceptions.ResponseError("PING was not answered with PONG")
            info = await client.info()
        return Reading(
            metrics=numbers(info, INFO_METRICS),
            details={"server_version": str(info.get("redis_version", ""))},
        )

    def explain(exc: Exception) -> str | None:
        if isinstance(
            exc,
            redis.exceptions.AuthenticationError
            | redis.exceptions.AuthenticationWrongNumberOfArgsError,
        ):
            who = f"user {settings.username}" if settings.username else "the default user"
            if settings.password:
                return f"authentication failed for {who} on {address}"
            return f"authentication failed: {address} requires a password and none is set"
        if isinstance(exc, redis.exceptions.ResponseError) and "NOAUTH" in str(exc):
            return f"authentication failed: {address} requires a password and none is set"
        if isinstance(exc, redis.exceptions.ConnectionError):
            return None  # the network error in the chain says more
        if isinstance(exc, redis.exceptions.RedisError):
            return f"Redis at {address}: {first_line(exc)}"
        return None

    return await run_check(settings, timeout=timeout, address=address, check=check, explain=explain)
