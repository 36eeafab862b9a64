"""/logs: the log explorer, and /logs/tail: the live tail.

The explorer searches the team's events with the query language of the API
(logs/query_language.py) through the same store search as `GET /api/v1/query`
(logsearch/endpoints.py): a page of PAGE events newest first, "Load older" with the query
API's own authenticated cursor, and a histogram of the matching events over the range
(console/logs_histogram.py). The URL holds the search (console/logs_params.py). A query
that cannot be read is shown beside the Query box (422), never a 500.

The live tail streams the same filters as Server-Sent Events (logsearch/tail.py's `follow`,
the API's tail) through a sampler: at most TAIL_LINES_PER_S lines a second reach the
browser, the rest are counted and the page says how many it skipped; console.js keeps at most
a bounded number of lines on the page.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any, Final

import orjson
from fastapi import Request
from fastapi.responses import PlainTextResponse, Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.auth import Viewer
from watchpost.console.logs_histogram import histogram, svg
from watchpost.console.logs_params import PRESETS, Explore, local, read, shown
from watchpost.console.saved_searches import saved_of
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import render
from watchpost.errors import InvalidRequest
from watchpost.http.deps import request_sessions
from watchpost.logs.store import Search
from watchpost.logsearch import query_params as params
from watchpost.logsearch.tail import open_tail
from watchpost.people.roles import Action
from watchpost.sources.models import Source

router = console_router()
PAGE: Final = 50
"""Events a page of results shows."""
MAX_CHOICES: Final = params.MAX_SOURCES
TAIL_LINES_PER_S: Final = 50
"""Lines a second the live tail sends a browser; more are skipped and counted."""
TAIL_KEEP: Final = 500
"""Lines the live tail page keeps (console.js drops the oldest)."""


async def _choices(db: AsyncSession, team_id: int) -> list[tuple[int, str]]:
    rows = await db.execute(
        select(Source.id, Source.name)
        .where(Source.team_id == team_id)
        .order_by(Source.name)
        .limit(MAX_CHOICES)
    )
    return [(row.id, row.name) for row in rows]


async def explorer_page(
    request: Request,
    who: Viewer,
    query: dict[str, str],
    *,
    status: int = 200,
    db: AsyncSession | None = None,
    **extra: Any,
) -> Response:
    """The explorer for a search (`query`: the URL's parameters, or a form's; `db`: the
    request's session when it already has one)."""
    ctx = request.app.state.ctx
    found = read(query, ctx.clock.now())
    if db is None:
        db = await request_sessions(request).read()
    choices = await _choices(db, who.team_id)
    saved = await saved_of(db, who.team_id)
    sources: dict[int, params.TeamSource] = {}
    try:
        sources = await params.team_sources(db, who.team_id, found.source or None)
    except InvalidRequest:
        found.errors["source"] = "Choose a source of this team"
    await request_sessions(request).close()  # a long search must not hold a connection
    events: list[Any] = []
    chart = None
    approximate = False
    older = None
    if not found.errors and sources:
        assert found.since is not None and found.until is not None
        owner = params.fingerprint(
            who.team_id, list(sources), found.query, found.since, found.until, True
        )
        before = None
        if found.cursor:
            try:
                before = params.decode_cursor(ctx.box, owner, found.cursor)
            except InvalidRequest:
                found.errors["q"] = "This page of results belongs to another search: search again"
        if not found.errors:
            search = Search(
                source_ids=list(sources),
                terms=found.terms,
                since=found.since,
                until=found.until,
                newest_first=True,
                limit=PAGE,
                before=before,
            )
            stored = await ctx.logs.search(search)
            for event in stored:
                sent = params.event_object(event.raw)
                pretty = orjson.dumps(sent, option=orjson.OPT_INDENT_2).decode()
                events.append(shown(event.id, event.dt, sent, pretty))
            if len(stored) == PAGE:
                older = found.older(params.encode_cursor(ctx.box, owner, stored[-1]))
            if before is None:
                counted = await histogram(ctx.logs, search)
                chart = svg(counted, found.until)
                approximate = counted.approximate
    return render(
        request,
        "logs.html",
        status=422 if found.errors and status == 200 else status,
        viewer=who,
        section="logs",
        found=found,
        presets=PRESETS,
        choices=choices,
        no_sources=not choices,
        events=events,
        chart=chart,
        approximate=approximate,
        older=older,
        saved=saved,
        since_local=local(found.since) if found.since else found.raw_from,
        until_local=local(found.until) if found.until else found.raw_to,
        save_errors=extra.pop("save_errors", {}),
        typed=extra.pop("typed", ""),
        **extra,
    )


@router.get("/logs")
async def explorer(request: Request, who: Signed) -> Response:
    who.require(Action.READ)
    return await explorer_page(request, who, dict(request.query_params))


# --------------------------------------------------------------------------- live tail


@router.get("/logs/tail")
async def tail_page(request: Request, who: Signed) -> Response:
    who.require(Action.READ)
    ctx = request.app.state.ctx
    found = read(dict(request.query_params), ctx.clock.now())
    found.errors.pop("from", None)  # the tail has no range
    found.errors.pop("to", None)
    db = await request_sessions(request).read()
    choices = await _choices(db, who.team_id)
    try:
        await params.team_sources(db, who.team_id, found.source or None)
    except InvalidRequest:
        found.errors["source"] = "Choose a source of this team"
    stream = Explore(query=found.query, source=found.source).link().replace("/logs", "", 1)
    return render(
        request,
        "log_tail.html",
        status=422 if found.errors else 200,
        viewer=who,
        section="logs",
        found=found,
        choices=choices,
        stream="/logs/tail/events" + stream,
        per_second=TAIL_LINES_PER_S,
        keep=TAIL_KEEP,
    )


async def sampled(chunks: AsyncIterator[bytes], per_second: int) -> AsyncIterator[bytes]:
    """The tail's SSE chunks with at most `per_second` `log` events in each second; the
    others are dropped, and a `skipped` event (data: the total so far) follows each chunk
    that dropped some."""
    window = time.monotonic()
    passed = skipped = 0
    try:
        async for chunk in chunks:
            if b"event: log" not in chunk:
                yield chunk
                continue
            kept: list[bytes] = []
            dropped = 0
            for part in chunk.split(b"\n\n"):
                if not part:
                    continue
                if b"\nevent: log\n" not in b"\n" + part + b"\n":
                    kept.append(part)
                    continue
                now = time.monotonic()
                if now - window >= 1.0:
                    window, passed = now, 0
                if passed < per_second:
                    passed += 1
                    kept.append(part)
                else:
                    dropped += 1
            if dropped:
                skipped += dropped
                kept.append(b"event: skipped\ndata: %d" % skipped)
            if kept:
                yield b"\n\n".join(kept) + b"\n\n"
    finally:
        close = getattr(chunks, "aclose", None)
        if close is not None:
            await close()


@router.get("/logs/tail/events")
async def tail_events(request: Request, who: Signed) -> Response:
    who.require(Action.READ)
    found = read(dict(request.query_params), request.app.state.ctx.clock.now())
    if "q" in found.errors:
        return PlainTextResponse(found.errors["q"], status_code=422)
    db = await request_sessions(request).read()
    sources = await params.team_sources(db, who.team_id, found.source or None)
    await request_sessions(request).close()
    response = open_tail(request, request.app.state.ctx.logs, who.team_id, sources, found.terms)
    chunks = getattr(response, "chunks")  # noqa: B009  (EventStream's producer)
    response.chunks = sampled(chunks, TAIL_LINES_PER_S)  # type: ignore[attr-defined]
    return response
