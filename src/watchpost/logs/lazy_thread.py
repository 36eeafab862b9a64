"""A daemon thread started at the first work it is given: the base of the logs store's threads
(journal.py, staging.py, writer.py)."""

from __future__ import annotations

import threading


class LazyThread:
    """Owns one daemon thread running `_run`, started by `_start` and ended by `_stop`.

    `_wake` guards the state the thread shares with its callers and wakes it; `_stopping`
    (set by `_stop`) tells it to finish what is queued and return.
    """

    def __init__(self, name: str) -> None:
        self._wake = threading.Condition()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._thread_name = name

    def _run(self) -> None:
        raise NotImplementedError

    def _start(self) -> None:
        """Start the thread unless it runs already (called holding `_wake`)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self._thread_name, daemon=True)
            self._thread.start()

    def _stop(self) -> None:
        """Tell the thread to stop, and wait until it has (blocking)."""
        with self._wake:
            self._stopping = True
            thread = self._thread
            self._wake.notify()
        if thread is not None:
            thread.join()
