"""The live tail: a team's matching events as Server-Sent Events, within a second of arrival.

The store is polled with `after_id` (ids ascend with the time of receipt). Events appended
by other processes can become visible slightly out of id order (an id is taken before the
append commits), so each poll reads from the ids of LAG_S seconds before the previous poll
began, and skips those already sent (a set holding only that window's ids). Memory per
connection is bounded: at most PAGES_PER_POLL pages of PAGE events are read per poll, and the
set is cut to its MAX_SEEN newest ids, the window then starting at the oldest it kept (at
more than MAX_SEEN / LAG_S events a second); a tail that falls that far behind stops
re-reading the window until it catches up. Late events can then be missed (the query API
still finds them); none is sent twice. The stream ends when the client
disconnects; TAILS_PER_TEAM tails may be open at once per team and process.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import orjson
from fastapi import Request
from fastapi.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from watchpost.errors import TooManyRequests
from watchpost.incoming.matching import MISSING, json_path
from watchpost.logs.events import StoredEvent, id_floor
from watchpost.logs.query_language import flatten
from watchpost.logs.store import LogStore, Search, Term
from watchpost.logsearch.query_params import TeamSource, event_object, format_dt

POLL_S: Final = 0.25
LAG_S: Final = 5.0
HEARTBEAT_S: Final = 15.0
PAGE: Final = 1000
PAGES_PER_POLL: Final = 5
MAX_SEEN: Final = 20_000
TAILS_PER_TEAM: Final = 10
RESUME_WINDOW: Final = timedelta(minutes=1)
MAX_LINE: Final = 4096
"""Characters of a rendered line; longer lines are cut."""

_PLACEHOLDER: Final = re.compile(r"\{([^{}]*)\}")
log = logging.getLogger(__name__)


def render_line(pattern: str, event: Any, dt: datetime, leaves: Mapping[str, str]) -> str:
    """The pattern with each `{field}` replaced by the event's value ("" when absent; an
    object or list as JSON; `{dt}` the event's time when the event has no `dt` of its own)."""

    def value(match: re.Match[str]) -> str:
        path = match.group(1).strip()
        if path in leaves:
            return leaves[path]
        if path == "dt":
            return dt.isoformat()
        node = json_path(event, path)
        return "" if node is MISSING else orjson.dumps(node).decode()

    line = _PLACEHOLDER.sub(value, pattern)
    return line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…"


def sse_event(event: StoredEvent, pattern: str) -> bytes:
    sent = event_object(event.raw)
    leaves = flatten(sent)
    data = {
        "dt": format_dt(event.dt),
        "source_id": str(event.source_id),
        "line": render_line(pattern, sent, event.dt, leaves),
        "event": sent,
    }
    return b"id: %d\nevent: log\ndata: %s\n\n" % (event.id, orjson.dumps(data))


def _wall_floor(seconds_ago: float) -> int:
    """The smallest id received `seconds_ago` seconds ago: ids follow the wall clock of the
    ingesting process, not the app's clock."""
    return id_floor(datetime.fromtimestamp(time.time() - seconds_ago, UTC))


async def follow(
    store: LogStore,
    sources: Mapping[int, TeamSource],
    terms: Sequence[Term],
    start_after: int,
) -> AsyncIterator[bytes]:
    """SSE chunks for the events matching `terms` with ids above `start_after`, forever."""
    ids = list(sources)
    seen: set[int] = set()  # ids sent that a poll may read again (above `low`)
    low = start_after  # the next poll reads ids above this: the previous poll's window
    resume: int | None = None  # set while behind: where the next poll goes on reading
    last_sent = time.monotonic()
    yield b"retry: 1000\n: tailing %d sources\n\n" % len(ids)
    while True:
        # What this poll sees of the last LAG_S seconds is read again by the next one.
        window = max(start_after, _wall_floor(LAG_S))
        after = resume if resume is not None else low
        resume = None
        for page_number in range(PAGES_PER_POLL):
            found = await store.search(
                Search(source_ids=ids, terms=terms, after_id=after, limit=PAGE)
            )
            chunks = []
            for event in found:
                if event.id in seen or event.id <= start_after:
                    continue
                seen.add(event.id)
                chunks.append(sse_event(event, sources[event.source_id].live_tail_pattern))
            if chunks:
                yield b"".join(chunks)
                last_sent = time.monotonic()
            if len(found) < PAGE:
                break
            after = found[-1].id
            if page_number == PAGES_PER_POLL - 1:
                resume = after  # behind: read on from here next time, without the window
        low = max(low, window)  # never back below ids it may have forgotten
        seen = {event_id for event_id in seen if event_id > low}
        if len(seen) > MAX_SEEN:
            kept = sorted(seen)[-MAX_SEEN:]
            seen = set(kept)
            low = max(low, kept[0] - 1)  # what it forgot is not read again (never sent twice)
            if resume is not None:
                resume = max(resume, low)
        if time.monotonic() - last_sent >= HEARTBEAT_S:
            yield b": keepalive\n\n"
            last_sent = time.monotonic()
        if resume is None:
            await asyncio.sleep(POLL_S)


class EventStream(StreamingResponse):
    """A `text/event-stream` response that ends its producer as soon as the client goes
    away (not at the next write, which could be a heartbeat away)."""

    media_type = "text/event-stream"

    def __init__(self, chunks: AsyncIterator[bytes], on_close: Any) -> None:
        super().__init__(
            chunks,
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            media_type=self.media_type,
        )
        self.chunks = chunks
        self.on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def pump() -> None:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            async for chunk in self.chunks:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})

        async def until_disconnect() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        producer = asyncio.ensure_future(pump())
        watcher = asyncio.ensure_future(until_disconnect())
        try:
            await asyncio.wait((producer, watcher), return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            # The server is stopping (uvicorn cancels what outlives its graceful shutdown):
            # the stream ends like any other, without a traceback; clients reconnect.
            pass
        finally:
            client_gone = watcher.done() and not watcher.cancelled()
            for task in (producer, watcher):
                task.cancel()
            for task in (producer, watcher):
                try:
                    await task
                except (asyncio.CancelledError, OSError):
                    pass
                except Exception:  # the store failed mid-stream: end this stream only
                    log.exception("live tail ended by an error")
            with suppress(Exception):
                await self.chunks.aclose()  # type: ignore[attr-defined]
            self.on_close()
        if not client_gone:  # end the response properly for a client still there
            with suppress(Exception):
                await send({"type": "http.response.body", "body": b"", "more_body": False})


def open_tail(
    request: Request,
    store: LogStore,
    team_id: int,
    sources: Mapping[int, TeamSource],
    terms: Sequence[Term],
) -> Response:
    """The stream of one tail; 429 while the team has TAILS_PER_TEAM open in this process."""
    state = request.app.state
    open_tails: dict[int, int] = getattr(state, "log_tails", None) or {}
    state.log_tails = open_tails
    if open_tails.get(team_id, 0) >= TAILS_PER_TEAM:
        raise TooManyRequests(5, f"At most {TAILS_PER_TEAM} live tails per team are open")
    start_after = _wall_floor(0) - 1
    resume = request.headers.get("last-event-id", "").strip()
    if resume.isascii() and resume.isdigit() and len(resume) < 20:
        oldest = id_floor(datetime.now(UTC) - RESUME_WINDOW)
        start_after = max(int(resume), oldest)
    open_tails[team_id] = open_tails.get(team_id, 0) + 1

    def close() -> None:
        open_tails[team_id] -= 1
        if not open_tails[team_id]:
            del open_tails[team_id]

    return EventStream(follow(store, sources, terms, start_after), close)
