"""Group commit: writes that arrive together share one transaction.

A request hands its item to `GroupCommit.submit` and waits. When no batch is being written
the item starts one at once (a lone request waits for nothing but its own transaction);
items that arrive while a batch is being written wait for it to commit, then go together in
the next. Each waiter gets its own item's result once the batch holding it has committed, or
the batch's error: a batch commits whole or not at all.

Under load this turns one transaction (pool checkout, BEGIN, COMMIT, close) per request into
one per batch, and the requests stop queueing for pooled connections one by one (the pool does
not serve its waiters in order: docs/benchmarks.md, "Lists under 50 connections").
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Final, Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

T = TypeVar("T")
R = TypeVar("R")

BATCH_MOST: Final = 500
"""Items a transaction takes at the most; the rest wait for the next."""


class GroupCommit(Generic[T, R]):
    """Items applied in batches by `apply(session, items) -> results` (one result an item, in
    order), each batch in one write transaction of `sessions`."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        apply: Callable[[AsyncSession, Sequence[T]], Awaitable[Sequence[R]]],
        *,
        committed: Callable[[], object] = lambda: None,
        most: int = BATCH_MOST,
    ) -> None:
        self._sessions = sessions
        self._apply = apply
        self._committed = committed
        """Called after each commit (the database is reachable)."""
        self._most = most
        self._waiting: list[tuple[T, asyncio.Future[R]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def submit(self, item: T) -> R:
        """The item's result once its batch has committed."""
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._waiting.append((item, future))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write())
        return await future

    async def _write(self) -> None:
        try:
            while self._waiting:
                batch = self._waiting[: self._most]
                del self._waiting[: self._most]
                await self._commit(batch)
        finally:
            self._writer = None

    async def _commit(self, batch: list[tuple[T, asyncio.Future[R]]]) -> None:
        try:
            async with self._sessions() as session, session.begin():
                results = await self._apply(session, [item for item, _ in batch])
        except BaseException as error:  # every waiter of the batch gets it; nothing was written
            for _, future in batch:
                if not future.done():
                    if isinstance(error, Exception):
                        future.set_exception(error)
                    else:  # the writer was cancelled (the server is stopping)
                        future.cancel()
            if not isinstance(error, Exception):
                raise
            return
        self._committed()
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():  # its request may have gone (the client hung up)
                future.set_result(result)
