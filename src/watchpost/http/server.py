"""The HTTP protocol `watchpost serve` runs: uvicorn's (httptools), with a deadline on each
request's head.

uvicorn bounds the idle time between requests (`timeout_keep_alive`), and stops counting at
the first byte: a client sending its headers a byte at a time held its connection (and a
file descriptor) for as long as it liked. Here a request's head (request line and headers)
must be complete within `header_timeout` seconds of the connection being made or of the
previous response; otherwise the connection is closed. The body is the app's to read.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class HeadTimeoutProtocol(HttpToolsProtocol):
    header_timeout: float = 10.0
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # Waiting for a new head, unless a pipelined one was complete already.
        if not self.transport.is_closing() and self.cycle.response_complete:
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()


def protocol(header_timeout: float) -> type[HeadTimeoutProtocol]:
    """The protocol class for uvicorn's `http=`, with this deadline."""
    return type("HeadTimeoutProtocol", (HeadTimeoutProtocol,), {"header_timeout": header_timeout})
