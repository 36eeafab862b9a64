"""The one writer of a logs store: a thread that owns the write connection and batches appends.

Every append of every request goes to one queue. The thread takes what is waiting (up to
`max_batch` events), writes it as one batch and only then answers each append: an append
returns when its events are durable, and concurrent appends share one commit (group commit).
Other writes (retention, new partitions) run on the same thread, in order, one at a time.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Sized
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from watchpost.logs.queue_thread import QueueThread, fail, resolve

C = TypeVar("C")  # the connection the thread owns
T = TypeVar("T")


@dataclass
class _Job:
    kind: str  # "logs", "metrics" or "call"
    items: Sized  # a chunk: an EventBatch, or a sequence of metric points
    call: Callable[[Any], Any] | None
    future: Future[Any]


class SerialWriter(QueueThread, Generic[C]):
    """One thread, one connection (opened on the thread at its first job), jobs in order;
    `close` finishes what is queued, closes the connection and ends the thread."""

    def __init__(
        self,
        name: str,
        connect: Callable[[], C],
        write: Callable[[C, str, list[Any]], None],  # (connection, kind, the chunks)
        disconnect: Callable[[C], None],
        max_batch: int = 20_000,
    ) -> None:
        super().__init__(name)
        self._connect = connect
        self._write = write
        self._disconnect = disconnect
        self._max_batch = max_batch
        self._jobs: deque[_Job] = deque()
        self._connection: C | None = None

    async def write(self, kind: str, items: Sized) -> None:
        """Queue a chunk of one kind ("logs" or "metrics"); returns once it is written.
        Chunks queued meanwhile are written together: `write` gets the list of them."""
        if items:
            await asyncio.wrap_future(self._submit(_Job(kind, items, None, Future())))

    async def call(self, work: Callable[[C], T]) -> T:
        """Run work(connection) on the writer's thread, after everything queued before it."""
        return await asyncio.wrap_future(self.submit(work))

    def submit(self, work: Callable[[C], T]) -> Future[T]:
        """As `call`, from any thread: the future of work(connection)'s result."""
        future: Future[T] = self._submit(_Job("call", (), work, Future()))
        return future

    def _submit(self, job: _Job) -> Future[Any]:
        with self._ready:
            if self._stopping:
                raise RuntimeError("the logs store is closed")
            self._jobs.append(job)
            self._wake()
        return job.future

    def _take(self) -> list[_Job] | None:
        """The next jobs to run together: one call, or appends of one kind up to max_batch."""
        with self._ready:
            while not self._jobs:
                if self._stopping:
                    return None
                self._ready.wait()
            first = self._jobs.popleft()
            taken = [first]
            if first.kind == "call":
                return taken
            count = len(first.items)
            while self._jobs and self._jobs[0].kind == first.kind:
                if count + len(self._jobs[0].items) > self._max_batch:
                    break
                job = self._jobs.popleft()
                count += len(job.items)
                taken.append(job)
            return taken

    def _run(self) -> None:
        try:
            while (jobs := self._take()) is not None:
                self._run_jobs(jobs)
        finally:
            if self._connection is not None:
                self._disconnect(self._connection)
                self._connection = None

    def _run_jobs(self, jobs: list[_Job]) -> None:
        try:
            if self._connection is None:
                self._connection = self._connect()
            connection = self._connection
            first = jobs[0]
            if first.call is not None:
                result = first.call(connection)
            else:
                self._write(connection, first.kind, [job.items for job in jobs])
                result = None
        except BaseException as exc:  # every waiting append learns of the failure
            for job in jobs:
                fail(job.future, exc)
            return
        for job in jobs:
            resolve(job.future, result)
