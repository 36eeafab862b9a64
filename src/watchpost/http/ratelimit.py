"""Rate limits applied to requests: per API token (`check_token`, called once the token is
known) and per client address (`limit_by_address`, a dependency of the routes without one).
The limiters themselves are the process's, in `watchpost/ratelimit.py`."""

from __future__ import annotations

from collections.abc import Hashable

from fastapi import Request

from watchpost.errors import TooManyRequests
from watchpost.ratelimit import RateLimiter


def _limit(request: Request, limiter: RateLimiter | None, key: Hashable, per: str) -> None:
    """429 when key has used up its requests of the minute (no limit: limiter is None)."""
    if limiter is None:
        return
    wait = limiter.acquire(key, request.app.state.ctx.clock.now().timestamp())
    if wait:
        raise TooManyRequests(
            wait, f"Rate limit exceeded: {limiter.per_minute} requests a minute {per}"
        )


def check_token(request: Request, token_id: int) -> None:
    """429 when the token has used up its requests of the minute."""
    _limit(request, request.app.state.ctx.limits.tokens, token_id, "per API token")


async def limit_by_address(request: Request) -> None:
    """Dependency of the routes without an API token: 429 when the client's address has used
    up its requests of the minute. Behind a reverse proxy the address is the one uvicorn
    takes from X-Forwarded-For (when the proxy is trusted: FORWARDED_ALLOW_IPS)."""
    address = request.client.host if request.client is not None else ""
    _limit(request, request.app.state.ctx.limits.addresses, address, "from one address")
