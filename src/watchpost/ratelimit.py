"""Request rate limits: per API token, and per client address on the routes without a token.

Each key (a token's id, a client address) has a bucket of its own, kept as one number: GCRA,
the generic cell rate algorithm. A limit of N a minute lets a key send N requests at once
and then one every 60/N seconds; the bucket's state is the time at which it would be full
again (its "theoretical arrival time"). No bucket is shared and nothing is locked: the
limiter runs on the event loop between two awaits, so one key's traffic never waits on
another's.

Memory is bounded: buckets live in least-recently-used order, a full bucket (idle for a
minute at most) carries no information and is dropped as new keys come in, and past
`max_keys` the least recently used bucket goes even if not full (its key then starts afresh,
which errs on the lenient side).

The limits are per process: N processes behind a load balancer let a key send up to N times
the limit.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

WINDOW = 60.0  # seconds: limits are given per minute
# Buckets one limiter keeps: ≈ 11 MiB, plus the keys (≤ 9 MiB of IPv6 address strings).
MAX_KEYS = 100_000
STEP_BACK = 1.0  # a bucket further in the future than WINDOW + this: the clock went back
EXPIRE_PER_INSERT = 2  # idle buckets dropped, at most, each time a new key comes in


class RateLimiter:
    """Per-key GCRA buckets of `per_minute` requests (`per_minute` > 0)."""

    __slots__ = ("_buckets", "_interval", "max_keys", "per_minute")

    def __init__(self, per_minute: int, *, max_keys: int = MAX_KEYS) -> None:
        if per_minute <= 0:
            raise ValueError("a rate limit is a positive number of requests a minute")
        self.per_minute = per_minute
        self.max_keys = max_keys
        self._interval = WINDOW / per_minute
        self._buckets: OrderedDict[Hashable, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def acquire(self, key: Hashable, now: float) -> float:
        """Counts a request of key at `now` (seconds): 0.0 when it may go on, else the seconds
        until it would be allowed (the refused request itself is not counted)."""
        buckets = self._buckets
        stored = buckets.get(key)
        full_at = stored
        if full_at is None or full_at < now or full_at - now > WINDOW + STEP_BACK:
            full_at = now  # a full bucket (or a clock that went back: start afresh)
        full_at += self._interval
        wait = full_at - now - WINDOW
        if wait > 1e-9:  # a float's rounding never refuses the last request of a burst
            return wait
        buckets[key] = full_at
        if stored is None:
            self._expire(now)
        else:
            buckets.move_to_end(key)
        return 0.0

    def _expire(self, now: float) -> None:
        """Drops a few of the least recently used buckets that are full again, and any
        beyond max_keys."""
        buckets = self._buckets
        for _ in range(EXPIRE_PER_INSERT):
            if len(buckets) <= 1:  # only the key just added: it stays (a huge limit can
                break  # leave its bucket full at once, as its interval is below a float's step)
            oldest, full_at = next(iter(buckets.items()))
            if full_at > now:
                break
            del buckets[oldest]
        while len(buckets) > self.max_keys:
            buckets.popitem(last=False)


@dataclass
class RateLimits:
    """The process's limiters; None where the setting is 0 (no limit)."""

    tokens: RateLimiter | None
    addresses: RateLimiter | None
    # Console sign-in attempts (passwords, second factors, reset requests): per client
    # address and per e-mail address.
    login_addresses: RateLimiter | None = None
    login_accounts: RateLimiter | None = None

    @classmethod
    def per_minute(
        cls, tokens: int, addresses: int, login_addresses: int = 0, login_accounts: int = 0
    ) -> RateLimits:
        def limiter(per_minute: int) -> RateLimiter | None:
            return RateLimiter(per_minute) if per_minute > 0 else None

        return cls(
            tokens=limiter(tokens),
            addresses=limiter(addresses),
            login_addresses=limiter(login_addresses),
            login_accounts=limiter(login_accounts),
        )
