"""/logs: the explorer finds a team's events with the query language, draws their histogram,
pages with the query API's cursor and filters by a clicked value; query errors are shown
beside the Query box; saved searches are kept per team with role checks; the live tail's
sampler bounds what reaches a browser."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import actions, audit_entries, person
from tests.factories.api import Api
from tests.factories.hostile_times import HOSTILE_TIMES
from tests.factories.log_ingest import create_source, ndjson_body, send
from watchpost.clock import FrozenClock
from watchpost.console.logs import sampled
from watchpost.logs.events import MetricPoint
from watchpost.logsearch.models import SavedSearch

_LINK = re.compile(r'href="(/logs\?[^"]+)"')


async def _send_events(client: httpx.AsyncClient, token: str, now: datetime, count: int) -> None:
    events = [
        {
            "dt": (now - timedelta(seconds=count - n)).isoformat(),
            "message": f"request {n} served",
            "level": "error" if n % 10 == 0 else "info",
            "http": {"status": 500 if n % 10 == 0 else 200},
        }
        for n in range(count)
    ]
    answer = await send(client, token, ndjson_body(events), "application/x-ndjson")
    assert answer.status_code == 202, answer.text


async def test_the_explorer_finds_pages_and_filters(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    clock.set(now)
    source_id, token = await create_source(api, "web")
    await _send_events(client, token, now, 60)
    async with person(app, "vera@example.com", "viewer") as (member, _):
        page = await member.get("/logs", params={"range": "15m"})
        assert page.status_code == 200, page.text[:500]
        assert 'role="img"' in page.text and "Matching events over time: 60 between" in page.text
        assert page.text.count('class="log-row') == 50
        assert "request 59 served" in page.text and "request 9 served" not in page.text
        assert "&#34;status&#34;: 200" in page.text  # the whole JSON, in <details>
        more = re.search(r'href="([^"]+)" class="button secondary">Load older', page.text)
        assert more is not None
        older = html.unescape(more.group(1))
        second = await member.get(older)
        assert second.status_code == 200
        assert second.text.count('class="log-row') == 10 and "request 0 served" in second.text
        assert "No older events in this range." in second.text
        # click to filter: a link that adds level:error to the query
        [link] = [
            html.unescape(m)
            for m in _LINK.findall(page.text)
            if "q=level%3Aerror" in html.unescape(m)
        ][:1]
        filtered = await member.get(link)
        assert filtered.text.count('class="log-row') == 6  # 0, 10 … 50
        assert "request 50 served" in filtered.text and "request 51 served" not in filtered.text
        assert "Matching events over time: 6 between" in filtered.text
        one = await member.get(
            "/logs", params={"q": 'http.status:500 -"request 0"', "source": source_id}
        )
        assert one.text.count('class="log-row') == 5
        custom = await member.get(
            "/logs",
            params={
                "range": "custom",
                "from": (now - timedelta(seconds=30)).strftime("%Y-%m-%dT%H:%M:%S"),
                "to": (now + timedelta(seconds=5)).strftime("%Y-%m-%dT%H:%M:%S"),
            },
        )
        assert custom.text.count('class="log-row') == 30


async def test_query_errors_are_shown_beside_the_query_box(app: FastAPI, api: Api) -> None:
    await create_source(api, "web")
    async with person(app, "vera@example.com", "viewer") as (member, _):
        bad = await member.get("/logs", params={"q": 'status:"open'})
        range_ = await member.get("/logs", params={"range": "custom", "from": "yesterday"})
        tail = await member.get("/logs/tail", params={"q": "a OR b"})
        stream = await member.get("/logs/tail/events", params={"q": "a OR b"})
    assert bad.status_code == 422
    assert 'id="q-error"' in bad.text and "unclosed quote" in bad.text
    assert bad.text.index('id="q-error"') < bad.text.index('id="q"')
    assert 'value="status:&#34;open"' in bad.text  # kept as typed
    assert range_.status_code == 422 and 'id="from-error"' in range_.text
    assert 'id="to-error"' in range_.text
    assert tail.status_code == 422 and "not supported" in tail.text
    assert stream.status_code == 422


async def test_a_time_that_cannot_be_read_or_held_is_shown_beside_its_field(
    app: FastAPI, api: Api
) -> None:
    await create_source(api, "web")
    async with person(app, "vera@example.com", "viewer") as (member, _):
        # (the page reads 40 characters of each: a longer fraction is cut to a readable time)
        shorter = [value for value in HOSTILE_TIMES if len(value) <= 40]
        for value in (*shorter, "x" * 5000, "1969-12-31T23:59", "2200-01-01T00:01"):
            for field in ("from", "to"):
                times = {"from": "2026-01-01T00:00", "to": "2026-01-01T01:00", field: value}
                page = await member.get("/logs", params={"range": "custom", **times})
                assert page.status_code == 422, (field, value[:40], page.text[:300])
                assert f'id="{field}-error"' in page.text


async def test_a_request_the_domain_finds_invalid_is_a_422_page(app: FastAPI, api: Api) -> None:
    """The tail's stream reads its source through the query API's own reading, whose
    InvalidRequest becomes the console's error page (errors.py), never JSON or a 500."""
    await create_source(api, "web")
    async with person(app, "vera@example.com", "viewer") as (member, _):
        stream = await member.get("/logs/tail/events", params={"source": "web,db"})
    assert stream.status_code == 422
    assert stream.headers["content-type"].startswith("text/html")
    assert "<h1>Not possible</h1>" in stream.text
    assert "must be a comma-separated list of source ids" in stream.text


async def test_saved_searches_are_kept_per_team_with_role_checks(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    await create_source(api, "web")
    async with person(app, "rita@example.com", "responder") as (member, csrf):
        form = {"csrf": csrf, "q": "level:error", "range": "24h", "source": ""}
        nameless = await member.post("/logs/saved", data={**form, "name": " "})
        assert nameless.status_code == 422 and 'id="save-name-error"' in nameless.text
        saved = await member.post("/logs/saved", data={**form, "name": "Errors today"})
        assert saved.status_code == 303
        page = await member.get(saved.headers["location"])
        assert "Search saved." in page.text and "Errors today" in page.text
        assert 'href="/logs?q=level%3Aerror&amp;range=24h"' in page.text
        again = await member.post("/logs/saved", data={**form, "name": "Errors today"})
        assert again.status_code == 422 and "has this name" in again.text
    async with app.state.ctx.db.read_sessions() as db:
        [row] = list(await db.scalars(select(SavedSearch)))
    async with person(app, "vera@example.com", "viewer") as (viewer, vcsrf):
        listed = await viewer.get("/logs")
        assert "Errors today" in listed.text and "Save the search" not in listed.text
        refused = [
            await viewer.post("/logs/saved", data={"csrf": vcsrf, "name": "Mine"}),
            await viewer.post(f"/logs/saved/{row.id}/delete", data={"csrf": vcsrf}),
        ]
        assert [r.status_code for r in refused] == [403, 403]
    async with person(app, "gus@example.com", "owner", team="globex") as (other, ocsrf):
        theirs = await other.post(f"/logs/saved/{row.id}/delete", data={"csrf": ocsrf})
        assert theirs.status_code == 404
        assert "Errors today" not in (await other.get("/logs")).text
    async with person(app, "rob@example.com", "responder") as (member, csrf):
        gone = await member.post(f"/logs/saved/{row.id}/delete", data={"csrf": csrf})
        assert gone.status_code == 303
    async with app.state.ctx.db.read_sessions() as db:
        assert list(await db.scalars(select(SavedSearch))) == []
    assert await actions(app) == ["source.created", "saved_search.created", "saved_search.deleted"]
    [entry] = [e for e in await audit_entries(app) if e.action == "saved_search.created"]
    assert entry.actor == "rita@example.com" and entry.subject == "Errors today"


async def test_saves_of_one_name_at_the_same_instant_keep_one_and_refuse_the_others(
    app: FastAPI, api: Api
) -> None:
    await create_source(api, "web")
    async with person(app, "rita@example.com", "responder") as (member, csrf):
        form = {"csrf": csrf, "q": "level:error", "range": "24h", "name": "Errors"}
        answers = await asyncio.gather(*(member.post("/logs/saved", data=form) for _ in range(4)))
    assert sorted(a.status_code for a in answers) == [303, 422, 422, 422]
    for refused in (a for a in answers if a.status_code == 422):
        assert 'id="save-name-error"' in refused.text and "has this name" in refused.text
        assert 'value="Errors"' in refused.text  # kept as typed
    async with app.state.ctx.db.read_sessions() as db:
        assert [row.name for row in await db.scalars(select(SavedSearch))] == ["Errors"]
    assert await actions(app) == ["source.created", "saved_search.created"]


async def _burst(count: int) -> AsyncIterator[bytes]:
    yield b"retry: 1000\n\n"
    yield b"".join(b'id: %d\nevent: log\ndata: {"line": "x"}\n\n' % n for n in range(count))


async def test_the_tail_sends_at_most_so_many_lines_a_second_and_counts_the_rest() -> None:
    chunks = [chunk async for chunk in sampled(_burst(5000), 50)]
    text = b"".join(chunks)
    assert text.startswith(b"retry: 1000\n\n")
    assert text.count(b"event: log\n") == 50
    assert b"event: skipped\ndata: 4950\n\n" in text


async def test_metrics_of_a_source_are_charted(app: FastAPI, api: Api, clock: FrozenClock) -> None:
    now = datetime.now(UTC)
    clock.set(now)
    source_id, _ = await create_source(api, "web")
    await app.state.ctx.logs.append_metrics(
        [
            MetricPoint(
                source_id=source_id,
                team_id=api.team_id,
                dt=now - timedelta(minutes=n),
                name=name,
                value=float(n),
                tags={},
            )
            for n in range(1, 30)
            for name in ("http_requests", "queue_depth")
        ]
    )
    async with person(app, "vera@example.com", "viewer") as (member, _):
        page = await member.get("/metrics", params={"of": f"source:{source_id}"})
        chosen = await member.get(
            "/metrics", params={"source": source_id, "name": "queue_depth", "range": "15m"}
        )
    assert page.status_code == 200
    assert "http_requests: 29 points" in page.text and "queue_depth</option>" in page.text
    assert re.search(r"queue_depth: 1[45] points", chosen.text)  # 1 to 14 or 15 min ago
