"""Finding logs with an API token: `GET /api/v1/query` (the hosted Query API: a page of a
team's events and a cursor URL for the next) and `GET /api/v1/tail` (Server-Sent Events as
events arrive, logsearch/tail.py). The query language is logs/query_language.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from watchpost.http.deps import Caller, Context, ReadDb, request_sessions
from watchpost.http.envelope import JsonResponse
from watchpost.http.errors import error_responses
from watchpost.logs.store import Search
from watchpost.logsearch import query_params as params
from watchpost.logsearch.tail import open_tail

logs = APIRouter(prefix="/api/v1", tags=["logs"])


@dataclass
class Chosen:
    """The events a query or a tail reads: of the team's sources `source_ids` names (all of
    them by default), matching `query`."""

    source_ids: Annotated[
        str | None,
        Query(
            description="Comma-separated source ids of the token's team; all its sources if absent."
        ),
    ] = None
    query: Annotated[
        str | None, Query(description='Words, "phrases", field:value, -exclusions.')
    ] = None


@dataclass
class Window:
    """Which page of a query: its time range, size and order, and where it goes on from."""

    from_: Annotated[str | None, Query(alias="from", description="ISO 8601 start.")] = None
    to: Annotated[str | None, Query(description="ISO 8601 end (excluded).")] = None
    batch: Annotated[str | None, Query(description="Rows per page (1 to 1000).")] = None
    order: Annotated[str | None, Query(description="newest_first or oldest_first.")] = None
    cursor: Annotated[str | None, Query(description="From a pagination.next URL.")] = None


@logs.get(
    "/query",
    summary="Query logs",
    description=(
        "A page of the team's events, newest first unless `order=oldest_first`. `from`/`to`: "
        "ISO 8601; either missing is 30 minutes from the other, both missing end now. "
        f"`batch`: 1 to {params.MAX_BATCH}, default {params.DEFAULT_BATCH}. "
        "`pagination.next` is the URL of the next page (null on the last)."
    ),
    responses=error_responses(401, 404, 422),
)
async def query_logs(
    request: Request,
    caller: Caller,
    ctx: Context,
    db: ReadDb,
    chosen: Annotated[Chosen, Depends()],
    window: Annotated[Window, Depends()],
) -> Response:
    terms = params.query_terms(chosen.query)
    size = params.batch_size(window.batch)
    newest = params.newest_first(window.order)
    since, until = params.time_range(window.from_, window.to, ctx.clock.now())
    sources = await params.team_sources(db, caller.team_id, chosen.source_ids)
    # Done with the database: a long search must not hold a pooled connection.
    await request_sessions(request).close()
    owner = params.fingerprint(
        caller.team_id, list(sources), chosen.query or "", since, until, newest
    )
    before = params.decode_cursor(ctx.box, owner, window.cursor) if window.cursor else None
    found = []
    if sources:
        found = await ctx.logs.search(
            Search(
                source_ids=list(sources),
                terms=terms,
                since=since,
                until=until,
                newest_first=newest,
                limit=size,
                before=before,
            )
        )
    next_url = None
    if len(found) == size:
        next_url = _next_url(
            request,
            ctx.settings.public_base,
            since,
            until,
            params.encode_cursor(ctx.box, owner, found[-1]),
        )
    body: dict[str, Any] = {
        "data": [params.row(event) for event in found],
        "pagination": {"next": next_url},
    }
    return JsonResponse(body)


def _next_url(request: Request, public: str | None, since: Any, until: Any, cursor: str) -> str:
    """The request's URL with the range pinned (a default `to` of "now" must not move
    between pages) and the new cursor."""
    kept = [
        (key, value)
        for key, value in request.query_params.multi_items()
        if key not in ("from", "to", "cursor")
    ]
    kept += [("from", since.isoformat()), ("to", until.isoformat()), ("cursor", cursor)]
    base = (public if public else str(request.base_url).rstrip("/")) + request.url.path
    return f"{base}?{urlencode(kept)}"


@logs.get(
    "/tail",
    summary="Live tail (Server-Sent Events)",
    description=(
        "Events of the team's sources as they arrive, as `text/event-stream`: one `log` event "
        "each (`id` the event's id; data `{dt, source_id, line, event}`, `line` rendered with "
        "the source's live_tail_pattern), a comment every 15 s while idle. `Last-Event-ID` "
        "resumes (within the last minute)."
    ),
    response_class=Response,
    # An endless text/event-stream: OpenAPI cannot describe it, and a client generated from
    # the schema would wait on it forever. docs/api.md documents it.
    include_in_schema=False,
)
async def tail_logs(
    request: Request,
    caller: Caller,
    ctx: Context,
    db: ReadDb,
    chosen: Annotated[Chosen, Depends()],
) -> Response:
    terms = params.query_terms(chosen.query)
    sources = await params.team_sources(db, caller.team_id, chosen.source_ids)
    return open_tail(request, ctx.logs, caller.team_id, sources, terms)


# What routes.py serves: this module's routers, each listed flat in the app.
routers = (logs,)
