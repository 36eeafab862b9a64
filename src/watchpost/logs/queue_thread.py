"""QueueThread: the one background thread of the logs store's journal, staging and writer.

Each of them guards a queue with a condition (`_ready`), starts its thread at the first piece
of work (`_wake`, called holding `_ready`) and, on `close`, lets the thread finish what is
queued and waits for it to end. The thread (`_run`) stops once `_stopping` is set and
nothing is left to do. Callers wait on concurrent futures, settled with `resolve` / `fail`.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, InvalidStateError
from contextlib import suppress
from typing import TypeVar

T = TypeVar("T")


def resolve(future: Future[T], result: T) -> None:
    """Give a waiting caller its result. One that gave up waiting (its request was
    cancelled: asyncio.wrap_future cancels the future) is skipped; raising here would end
    the thread, and every later caller would wait for ever."""
    with suppress(InvalidStateError):
        future.set_result(result)


def fail(future: Future[T], error: BaseException) -> None:
    """Tell a waiting caller its work failed (one that gave up waiting is skipped)."""
    with suppress(InvalidStateError):
        future.set_exception(error)


class QueueThread:
    def __init__(self, name: str) -> None:
        self._ready = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._thread_name = name

    def _run(self) -> None:
        raise NotImplementedError

    def _wake(self) -> None:
        """Start the thread unless it runs, and tell it there is work (holding `_ready`)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self._thread_name, daemon=True)
            self._thread.start()
        self._ready.notify()

    def close(self) -> None:
        """Let the thread finish what is queued, then stop it (blocking)."""
        with self._ready:
            self._stopping = True
            thread = self._thread
            self._ready.notify()
        if thread is not None:
            thread.join()
