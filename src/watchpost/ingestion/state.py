"""What every ingestion request goes through, whatever its format: the client address's rate
limit, the source token, the source's rate limit, a bounded number of bodies in work at once,
the source's daily quota, and the store's durable append.

The process keeps one `Ingestion` per app context (`ingestion_for`): token lookups cached for
`TOKEN_TTL` seconds (a paused, resumed or deleted source is seen within that time), the two
rate limiters and the quota counters. Like the API's rate limits, the rate limits are per
process; the daily quotas are counted in the database, shared by every process (quotas.py).

Tokens: the token sent is hashed (SHA-256, as stored) before anything looks it up, so neither
the database's index nor the cache ever compares the secret itself; what a lookup's timing
could tell is about the hash, which says nothing about any token.
"""

from __future__ import annotations

import asyncio
import math
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from fastapi import Depends, Request
from fastapi.params import Depends as DependsParam
from fastapi.security import HTTPBearer
from sqlalchemy import select

from watchpost.context import AppContext
from watchpost.crypto import hash_token
from watchpost.ingestion.quotas import Quotas
from watchpost.logs.batch import EventBatch
from watchpost.logs.events import MetricPoint
from watchpost.logs.ingest_body import MAX_BODY_BYTES, declared_too_large
from watchpost.logs.store import LogStore
from watchpost.ratelimit import RateLimiter
from watchpost.setting_values import parse_source_quotas
from watchpost.sources.models import Source

TOKEN_TTL: Final = 10.0
"""Seconds a token lookup (found or not) is reused."""
TOKEN_CACHE_SIZE: Final = 10_000
TOKEN_MAX: Final = 256
"""A longer bearer token names no source (and is not looked up)."""
CONCURRENT_BODIES: Final = 4
"""Bodies parsed and stored at once by one process (once read); more wait their turn, so the
parsed events held stay bounded whatever the number of clients."""
READING_BUDGET: Final = 8 * MAX_BODY_BYTES
"""Bytes of bodies one process holds while they are read, all requests together (160 MiB);
past it a request is answered 503 with Retry-After (every client retries it). Reading is not
in the parse slots: a slow upload holds only what it sent, never another request's turn."""
BUSY: Final = "Too many bodies are being received; retry shortly"
BUSY_RETRY_S: Final = 1.0
_STATE = "log_ingestion"


class Refused(Exception):
    """A request ingestion does not take: its status, message and, for 429, the wait."""

    def __init__(self, status: int, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after

    @property
    def headers(self) -> dict[str, str]:
        if self.status == 401:
            return {"WWW-Authenticate": "Bearer"}
        if self.retry_after is not None:
            return {"Retry-After": str(max(1, math.ceil(self.retry_after)))}
        return {}


SOURCE_TOKEN: Final[DependsParam] = Depends(
    HTTPBearer(
        scheme_name="sourceToken",
        description="A source's token (its `token` attribute): `Authorization: Bearer "
        "<source token>`. Not the team's API token.",
        auto_error=False,
    )
)
"""The OpenAPI's security scheme of the ingestion routes (a dependency of their routers; the
token itself is checked by Ingestion.source_for, after the address's rate limit)."""
NO_TOKEN: Final = "Send the source token as 'Authorization: Bearer <source token>'."  # noqa: S105  (a message)
TOO_LARGE: Final = f"payload reached size limit ({MAX_BODY_BYTES} bytes decoded)"
NO_SUCH_SOURCE: Final = "Unauthorized: no source has this token."


@dataclass(frozen=True, slots=True)
class SourceInfo:
    """What ingestion needs of a source."""

    id: int
    team_id: int
    paused: bool
    logs_retention: int
    """Days; an event older than this is dropped on arrival (it would be at once anyway)."""
    metrics_retention: int
    """Days, the same for metric samples."""


class TokenCache:
    """Token hash -> source (or None: no such source), each kept TOKEN_TTL seconds; least
    recently used entries go first past `size`."""

    def __init__(self, size: int = TOKEN_CACHE_SIZE, ttl: float = TOKEN_TTL) -> None:
        self.size = size
        self.ttl = ttl
        self._entries: OrderedDict[str, tuple[float, SourceInfo | None]] = OrderedDict()

    def get(self, key: str, now: float) -> tuple[bool, SourceInfo | None]:
        """(found, source)."""
        entry = self._entries.get(key)
        if entry is None or now - entry[0] > self.ttl or now < entry[0]:
            return False, None
        self._entries.move_to_end(key)
        return True, entry[1]

    def put(self, key: str, source: SourceInfo | None, now: float) -> None:
        self._entries[key] = (now, source)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)


def _limiter(per_minute: int) -> RateLimiter | None:
    return RateLimiter(per_minute) if per_minute > 0 else None


class Ingestion:
    """The process's ingestion state for one app context."""

    def __init__(self, ctx: AppContext) -> None:
        settings = ctx.settings
        self.ctx = ctx
        self.addresses = _limiter(settings.logs_address_rate_limit_per_minute)
        self.sources = _limiter(settings.logs_source_rate_limit_per_minute)
        self.tokens = TokenCache()
        self.quotas = Quotas(
            settings.logs_daily_event_quota,
            parse_source_quotas(settings.logs_source_quotas),
            ctx.db,
        )
        self.slots = asyncio.Semaphore(CONCURRENT_BODIES)
        self.reading_budget = READING_BUDGET
        self.reading = 0
        """Bytes held by bodies being read, all requests together."""

    @property
    def store(self) -> LogStore:
        return self.ctx.logs

    def now(self) -> datetime:
        return self.ctx.clock.now()

    @contextmanager
    def reading_account(self) -> Iterator[Callable[[int], None]]:
        """A `grow` for read_decoded: counts the request's bytes against the process's
        reading budget (503 past it), and gives them back when the request is done."""
        held = 0

        def grow(count: int) -> None:
            nonlocal held
            if self.reading + count > self.reading_budget:
                raise Refused(503, BUSY, BUSY_RETRY_S)
            self.reading += count
            held += count

        try:
            yield grow
        finally:
            self.reading -= held

    async def source_for(self, request: Request) -> SourceInfo:
        """The source whose token the request carries, after both rate limits; Refused
        otherwise (429, 413 for a declared length over the limit, 401 without a bearer token,
        403 for an unknown one)."""
        now = self.now().timestamp()
        address = request.client.host if request.client is not None else ""
        _check(self.addresses, address, now, "from one address")
        if declared_too_large(request.headers.get("content-length", ""), MAX_BODY_BYTES):
            raise Refused(413, TOO_LARGE)  # before any look-up
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise Refused(401, NO_TOKEN)
        if len(token) > TOKEN_MAX:
            raise Refused(403, NO_SUCH_SOURCE)
        key = hash_token(token)
        found, source = self.tokens.get(key, now)
        if not found:
            source = await self._lookup(key)
            self.tokens.put(key, source, now)
        if source is None:
            raise Refused(403, NO_SUCH_SOURCE)
        _check(self.sources, source.id, now, "per source")
        return source

    async def _lookup(self, token_hash: str) -> SourceInfo | None:
        stmt = select(
            Source.id,
            Source.team_id,
            Source.ingesting_paused,
            Source.logs_retention,
            Source.metrics_retention,
        ).where(Source.token_hash == token_hash)
        async with self.ctx.db.read_sessions() as session:
            row = (await session.execute(stmt)).first()
        if row is None:
            return None
        return SourceInfo(
            id=row[0],
            team_id=row[1],
            paused=row[2],
            logs_retention=row[3],
            metrics_retention=row[4],
        )

    def fresh(self, source: SourceInfo, batch: EventBatch, received: datetime) -> EventBatch:
        """The batch without its events older than the source's retention."""
        return batch.since(received - timedelta(days=source.logs_retention))

    async def _take_quota(self, source: SourceInfo, count: int) -> None:
        wait = await self.quotas.take(source.id, count, self.now())
        if wait:
            raise Refused(
                429,
                f"Quota exceeded: this source may send {self.quotas.of(source.id)} events a day",
                wait,
            )

    async def store_events(self, source: SourceInfo, batch: EventBatch) -> None:
        """The source's quota, then the durable append: 429 when over the day's quota."""
        await self._take_quota(source, len(batch))
        if len(batch):
            await self.store.append_batch(batch)

    async def store_metrics(self, source: SourceInfo, samples: list[MetricPoint]) -> None:
        """As store_events, for metric samples (they count against the same quota)."""
        await self._take_quota(source, len(samples))
        if samples:
            await self.store.append_metrics(samples)


def _check(limiter: RateLimiter | None, key: object, now: float, per: str) -> None:
    if limiter is None:
        return
    wait = limiter.acquire(key, now)
    if wait:
        raise Refused(
            429, f"Rate limit exceeded: {limiter.per_minute} requests a minute {per}", wait
        )


def ingestion_for(request: Request) -> Ingestion:
    """The Ingestion of the app's current context (a new one when the context changed)."""
    state = request.app.state
    ctx: AppContext = state.ctx
    current: Ingestion | None = getattr(state, _STATE, None)
    if current is None or current.ctx is not ctx:
        current = Ingestion(ctx)
        setattr(state, _STATE, current)
    return current
