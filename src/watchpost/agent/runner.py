"""The agent's loop: ask for due checks, run them with the engine's probes and deadlines,
send the results back in batches.

Nothing is kept on disk. Finished results wait in a bounded buffer until the server has
taken them: a server that restarts or is unreachable for a while gets them late, each
stamped with its age when sent (the server works out when the check really ran). A batch
whose answer is lost is sent again; the server discards what it already applied. When the
buffer is full, the oldest result gives way (counted in the log).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
import time
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

import aiohttp

from watchpost import __version__
from watchpost.agent.wire import check_input
from watchpost.probes.base import ProbeResult
from watchpost.probes.running import GUARD_S, RUNNERS, CheckInput, Runner, run_guarded

log = logging.getLogger("watchpost.probe")

BUFFER_MAX: Final = 50_000
"""Results kept while the server cannot take them (at 3,000 monitors checked every 30 s,
about 8 minutes of them; ≈ 25 MB): the oldest give way beyond it."""
BATCH: Final = 500
BATCH_BYTES: Final = 512 * 1024
FLUSH_EVERY_S: Final = 0.25
"""Finished results wait at most this long to join a batch."""
BACKOFF_MAX_S: Final = 30.0
REQUEST_TIMEOUT_S: Final = 30.0
KEEPALIVE_S: Final = 2.0


class AgentError(Exception):
    """The agent cannot go on (a refused token, another location than asked for)."""


@dataclass(frozen=True)
class Finished:
    token: str
    result: ProbeResult
    at: float
    """time.monotonic() when it finished."""
    wall: datetime
    """The same moment by this machine's clock."""


class Agent:
    def __init__(
        self,
        server: str,
        token: str,
        *,
        location: str | None = None,
        concurrency: int = 200,
        buffer_max: int = BUFFER_MAX,
    ) -> None:
        self.base = server.rstrip("/") + "/api/probe/v1"
        self.headers = {"Authorization": f"Bearer {token}"}
        self.location = location
        self.owner = secrets.token_hex(16)
        self.concurrency = concurrency
        self.buffer: deque[Finished] = deque(maxlen=buffer_max)
        self.dropped = 0
        self.running: dict[str, asyncio.Task[None]] = {}
        self.stopping = asyncio.Event()
        self._wake = asyncio.Event()
        self._full = False
        """The claimer waits for a running check to finish (then it may claim again)."""
        self._http: aiohttp.ClientSession | None = None
        self.applied = 0
        self.discarded = 0

    async def _post(self, path: str, body: dict[str, Any]) -> Any:
        assert self._http is not None
        async with self._http.post(f"{self.base}/{path}", json=body, headers=self.headers) as resp:
            if resp.status == 401:
                raise AgentError("the server refused the probe token (unknown or revoked)")
            resp.raise_for_status()
            return await resp.json()

    async def run(self) -> None:
        """Until stop(): then running checks finish, their results are sent, leases freed."""
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
        # Idle connections are closed before a server would (uvicorn: after 5 s), so a
        # request never goes out on a connection the server is closing.
        connector = aiohttp.TCPConnector(keepalive_timeout=KEEPALIVE_S)
        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as self._http:
            await self._hello()
            flusher = asyncio.create_task(self._flush_forever())
            try:
                await self._claim_forever()
            finally:
                await self._finish(flusher)

    def stop(self) -> None:
        self.stopping.set()
        self._wake.set()

    async def _hello(self) -> None:
        agent = f"{socket.gethostname()} watchpost/{__version__}"
        delay = 1.0
        while not self.stopping.is_set():
            try:
                answer = await self._post("hello", {"agent": agent})
            except (aiohttp.ClientError, TimeoutError) as exc:
                log.warning("server unreachable (%s); trying again in %.0f s", exc, delay)
                await self._pause(delay)
                delay = min(delay * 2, BACKOFF_MAX_S)
                continue
            if self.location is not None and answer["location"] != self.location:
                raise AgentError(
                    f"the token is for location {answer['location']!r}, not {self.location!r}"
                )
            self.location = answer["location"]
            log.info("checking from %s (region %s)", answer["location"], answer["region"])
            return

    async def _pause(self, seconds: float) -> None:
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout=seconds)

    async def _claim_forever(self) -> None:
        delay = 1.0
        while not self.stopping.is_set():
            room = self.concurrency - len(self.running)
            try:
                answer = await self._post("claims", {"owner": self.owner, "limit": max(room, 0)})
            except (aiohttp.ClientError, TimeoutError) as exc:
                log.warning("claiming failed (%s); trying again in %.0f s", exc, delay)
                await self._pause(delay)
                delay = min(delay * 2, BACKOFF_MAX_S)
                continue
            delay = 1.0
            for check in answer["checks"]:
                if check["token"] not in self.running:
                    self._start(check)
            self._full = len(self.running) >= self.concurrency
            if len(answer["checks"]) < room or self._full:
                # Nothing more is due now (or no room): wait for the server's next_in_s,
                # which runs a little past the next due time so that checks due close
                # together come in one claim, as the engine claims its own.
                await self._pause(float(answer["next_in_s"]))

    def _start(self, check: dict[str, Any]) -> None:
        token = check["token"]
        checked = check_input(check["kind"], check["input"])
        runner = RUNNERS[check["kind"]]
        task = asyncio.create_task(self._check(token, checked, float(check["timeout"]), runner))
        self.running[token] = task

    async def _check(self, token: str, checked: CheckInput, timeout: float, runner: Runner) -> None:
        try:
            result = await run_guarded(checked, timeout, runner, what=token)
            if len(self.buffer) == self.buffer.maxlen:
                self.dropped += 1
                log.warning("result buffer full: the oldest result is dropped")
            self.buffer.append(Finished(token, result, time.monotonic(), datetime.now(UTC)))
        finally:
            self.running.pop(token, None)
            if self._full:
                self._full = False
                self._wake.set()

    async def _flush_forever(self) -> None:
        delay = FLUSH_EVERY_S
        while True:
            await asyncio.sleep(delay)
            delay = FLUSH_EVERY_S if await self.flush() else min(delay * 2, BACKOFF_MAX_S)

    async def flush(self) -> bool:
        """Send what is buffered, a batch at a time; False when the server did not take it."""
        while self.buffer:
            batch = self._batch()
            now = time.monotonic()
            body = {
                "owner": self.owner,
                "results": [
                    {
                        "token": f.token,
                        "ok": f.result.ok,
                        "latency_ms": round(f.result.latency_ms, 3),
                        "error": f.result.error,
                        "details": dict(f.result.details),
                        "metrics": dict(f.result.metrics),
                        "age_ms": int((now - f.at) * 1000),
                        "finished_at": f.wall.isoformat(),
                    }
                    for f in batch
                ],
            }
            try:
                answer = await self._post("results", body)
            except (aiohttp.ClientError, TimeoutError) as exc:
                log.warning("sending %d results failed (%s); kept for later", len(batch), exc)
                return False
            taken = {id(f) for f in batch}
            while self.buffer and id(self.buffer[0]) in taken:
                self.buffer.popleft()
            self.applied += int(answer["applied"])
            self.discarded += int(answer["discarded"])
        return True

    def _batch(self) -> list[Finished]:
        """The oldest results, at most BATCH and about BATCH_BYTES of JSON (the server
        refuses a body over 1 MiB)."""
        batch: list[Finished] = []
        size = 0
        for finished in self.buffer:
            result = finished.result
            size += 300 + len(result.error or "") + 40 * len(result.metrics)
            size += sum(len(k) + len(v) + 8 for k, v in result.details.items())
            if batch and (len(batch) >= BATCH or size > BATCH_BYTES):
                break
            batch.append(finished)
        return batch

    async def _finish(self, flusher: asyncio.Task[None]) -> None:
        if self.running:
            await asyncio.wait(list(self.running.values()), timeout=GUARD_S + 5)
        flusher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await flusher
        with contextlib.suppress(aiohttp.ClientError, TimeoutError, AgentError):
            await self.flush()
            await self._post("bye", {"owner": self.owner})
        log.info(
            "stopped: %d results applied, %d discarded, %d dropped, %d unsent",
            self.applied,
            self.discarded,
            self.dropped,
            len(self.buffer),
        )
