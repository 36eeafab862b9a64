"""Sign-up rate limits: per client address and per page (GCRA limiters of ratelimit.py, one
set per app context, so per process)."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from fastapi import Request

from watchpost.context import AppContext
from watchpost.errors import TooManyRequests
from watchpost.ratelimit import RateLimiter


@dataclass
class _Limiters:
    addresses: RateLimiter | None
    pages: RateLimiter | None


_BY_CONTEXT: dict[int, _Limiters] = {}
"""id of a live context → its limiters (a context is not hashable)."""


def _limiters(ctx: AppContext) -> _Limiters:
    found = _BY_CONTEXT.get(id(ctx))
    if found is None:
        per_address = ctx.settings.subscribe_rate_limit_per_minute
        per_page = ctx.settings.subscribe_page_rate_limit_per_minute
        found = _Limiters(
            addresses=RateLimiter(per_address) if per_address else None,
            pages=RateLimiter(per_page) if per_page else None,
        )
        _BY_CONTEXT[id(ctx)] = found
        weakref.finalize(ctx, _BY_CONTEXT.pop, id(ctx), None)
    return found


def _acquire(ctx: AppContext, limiter: RateLimiter | None, key: object, per: str) -> None:
    if limiter is None:
        return
    wait = limiter.acquire(key, ctx.clock.now().timestamp())
    if wait:
        raise TooManyRequests(wait, f"Too many sign-ups: {limiter.per_minute} a minute {per}")


def check_address(request: Request, ctx: AppContext) -> None:
    address = request.client.host if request.client is not None else ""
    _acquire(ctx, _limiters(ctx).addresses, address, "from one address")


def check_page(ctx: AppContext, page_id: int) -> None:
    _acquire(ctx, _limiters(ctx).pages, page_id, "to one status page")
