"""Database outages: which errors mean "the database cannot be reached", and one log line each
for the start and the end of an outage.

An unreachable database makes every request and every engine cycle fail the same way. A
traceback for each would bury the one fact that matters (and did: 24 KB per request), so the
API answers 503 with `Retry-After`, the engine backs off, and `Outage` logs the start once
and the end once, for the whole process.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import DBAPIError

log = logging.getLogger(__name__)

RETRY_AFTER_S = 5
"""What a 503 during an outage tells clients to wait (the `Retry-After` header), in seconds."""

POSTGRES_UNAVAILABLE_CLASSES = frozenset({"08", "53", "57", "58"})
"""SQLSTATE classes of a server that cannot serve: connection exception, insufficient
resources, operator intervention (shutdown, terminated backend), system error."""

SQLITE_UNAVAILABLE = ("SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_BUSY", "SQLITE_FULL")
"""SQLite result codes (and their extended forms) of a file that cannot be used now: it
cannot be opened (folder gone, no permission), the disk fails or is full, or another
process kept the write lock past the busy timeout."""


def is_unavailable(exc: BaseException) -> bool:
    """Whether exc says the database cannot be reached or used right now (not a bad query)."""
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    orig = exc.orig
    # psycopg is loaded only on PostgreSQL (a SQLite server never pays for it): without it
    # loaded, no error can be one of its.
    pg = sys.modules.get("psycopg")
    if pg is not None and isinstance(orig, pg.OperationalError):
        # No SQLSTATE: libpq failed before the server answered (refused, reset, timed out).
        return orig.sqlstate is None or orig.sqlstate[:2] in POSTGRES_UNAVAILABLE_CLASSES
    if isinstance(orig, sqlite3.Error):
        name = getattr(orig, "sqlite_errorname", "") or ""
        return name.startswith(SQLITE_UNAVAILABLE)
    return pg is not None and isinstance(orig, pg.InterfaceError)


def reason(exc: BaseException) -> str:
    """The first line of the driver's message: what an operator needs, without a traceback."""
    orig = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    lines = str(orig).strip().splitlines()
    return lines[0] if lines else type(orig).__name__


class Outage:
    """Whether this process currently sees the database as unreachable; logs each change once.

    Shared by the API and the engine of a process (it lives on `Database`), so an outage is
    one WARNING line and its end one more, however many requests and cycles fail meanwhile.
    """

    __slots__ = ("_since",)

    def __init__(self) -> None:
        self._since: float | None = None

    @property
    def active(self) -> bool:
        return self._since is not None

    def report(self, exc: BaseException) -> bool:
        """Whether exc means the database is unreachable; if so the outage is noted (logged
        once), and the caller logs nothing more."""
        if not is_unavailable(exc):
            return False
        self.failed(exc)
        return True

    @contextmanager
    def logged(self, logger: logging.Logger, message: str, *args: object) -> Iterator[None]:
        """Runs the block; an error it raises ends it and is logged, not raised: an outage
        once (`report`), anything else with its traceback (`message % args`)."""
        try:
            yield
        except Exception as exc:
            if not self.report(exc):
                logger.exception(message, *args)

    def failed(self, exc: BaseException) -> None:
        """A database call failed with an `is_unavailable` error."""
        if self._since is None:
            self._since = time.monotonic()
            log.warning("database unreachable: %s (answering 503 until it is back)", reason(exc))

    def succeeded(self) -> None:
        """A database call succeeded: ends an outage, if one was going on. Cheap otherwise."""
        if self._since is not None:
            lasted = time.monotonic() - self._since
            self._since = None
            log.warning("database reachable again after %.1f s", lasted)
