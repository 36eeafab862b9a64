"""GET /api/v1/query: rows, order, filters, cursor pages, the team's sources only, errors."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson
import pytest
from fastapi import FastAPI

from tests.factories.api import Api, errors
from tests.factories.hostile_times import HOSTILE_TIMES
from tests.logs_query.conftest import Recorded
from tests.logs_query.events import log_event, new_source
from tests.logs_query.reference import reference_search
from watchpost.logs.query_language import parse, unparse
from watchpost.logs.store import Field, Search, Term, Word
from watchpost.logsearch.query_params import format_dt

QUERY = "/api/v1/query"


def now(app: FastAPI) -> datetime:
    moment: datetime = app.state.ctx.clock.now()
    return moment


async def fill(app: FastAPI, store: Recorded, api: Api, source_id: int, count: int) -> None:
    start = now(app) - timedelta(minutes=count)
    await store.append(
        [
            log_event(
                source_id,
                api.team_id,
                start + timedelta(minutes=n),
                {
                    "dt": int((start + timedelta(minutes=n)).timestamp()),
                    "message": f"request {n} {'failed' if n % 3 == 0 else 'served'}",
                    "level": "error" if n % 3 == 0 else "info",
                    "context": {"runtime": {"file": f"app{n % 2}.py"}},
                },
            )
            for n in range(count)
        ]
    )


async def rows(api: Api, **query: Any) -> dict[str, Any]:
    response = await api.get(QUERY, params=query)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_rows_newest_first(app: FastAPI, api: Api, store: Recorded) -> None:
    source = await new_source(api)
    await fill(app, store, api, source, 5)
    body = await rows(api, source_ids=str(source))
    assert body["pagination"] == {"next": None}
    assert [row["message"].split()[1] for row in body["data"]] == ["4", "3", "2", "1", "0"]
    first = body["data"][0]
    assert first["source_id"] == str(source)
    assert first["dt"] == (now(app) - timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M:%S.%f")
    assert first["context"] == {"runtime": {"file": "app0.py"}}
    assert list(first)[:2] == ["dt", "source_id"]
    oldest = await rows(api, source_ids=str(source), order="oldest_first")
    assert [row["message"] for row in oldest["data"]] == [
        row["message"] for row in reversed(body["data"])
    ]


async def test_default_window_is_thirty_minutes(app: FastAPI, api: Api, store: Recorded) -> None:
    source = await new_source(api)
    await fill(app, store, api, source, 45)
    body = await rows(api, source_ids=str(source))
    assert len(body["data"]) == 30
    earlier = (now(app) - timedelta(hours=1)).isoformat()
    assert len((await rows(api, source_ids=str(source), to=earlier))["data"]) == 0
    start = (now(app) - timedelta(minutes=45)).strftime("%Y-%m-%d %H:%M:%S UTC")
    assert len((await rows(api, source_ids=str(source), **{"from": start}))["data"]) == 30


@pytest.mark.parametrize(
    "query",
    [
        "failed",
        "level:error",
        "-level:error",
        "request -failed",
        '"request 1"',
        "context.runtime.file:app1.py",
        "context.runtime.file:app*",
        "level:error app0.py",
        "",
    ],
)
async def test_filters_match_the_reference(
    app: FastAPI, api: Api, store: Recorded, query: str
) -> None:
    source = await new_source(api)
    await fill(app, store, api, source, 20)
    body = await rows(api, source_ids=str(source), query=query)
    expected = reference_search(
        store.events,
        Search([source], parse(query), since=now(app) - timedelta(minutes=30), until=now(app)),
    )
    assert [row["message"] for row in body["data"]] == [
        orjson.loads(event.raw)["message"] for event in expected
    ]
    assert body["data"], "every query here matches something"


async def test_cursor_pages(app: FastAPI, api: Api, store: Recorded) -> None:
    source = await new_source(api)
    await fill(app, store, api, source, 12)
    seen: list[str] = []
    url: str | None = f"{QUERY}?source_ids={source}&batch=5&query=request"
    pages = 0
    while url is not None:
        response = await api.get(url)
        assert response.status_code == 200, response.text
        body = response.json()
        seen += [row["message"] for row in body["data"]]
        url = body["pagination"]["next"]
        if url is not None:
            assert url.startswith("http://testserver/api/v1/query?")
            assert parse_qs(urlsplit(url).query)["batch"] == ["5"]
        pages += 1
    assert pages == 3
    assert seen == [
        f"request {n} {'failed' if n % 3 == 0 else 'served'}" for n in range(11, -1, -1)
    ]


async def test_bad_cursors(app: FastAPI, api: Api, store: Recorded) -> None:
    source = await new_source(api)
    await fill(app, store, api, source, 4)
    next_url = (await rows(api, source_ids=str(source), batch="2"))["pagination"]["next"]
    cursor = parse_qs(urlsplit(next_url).query)["cursor"][0]
    for bad in ("nonsense", cursor[:-2] + "AA", "x" * 600):
        problems = errors(await api.get(QUERY, params={"source_ids": source, "cursor": bad}))
        assert problems[1] == ["cursor"]
    # A cursor of another query (another filter) is refused as well.
    other = {"source_ids": source, "cursor": cursor, "query": "failed"}
    assert errors(await api.get(QUERY, params=other))[1] == ["cursor"]


async def test_only_the_team_sources(
    app: FastAPI, api: Api, other_api: Api, store: Recorded
) -> None:
    mine = await new_source(api)
    theirs = await new_source(other_api, "theirs")
    await fill(app, store, api, mine, 3)
    await fill(app, store, other_api, theirs, 3)
    for ids in (str(theirs), f"{mine},{theirs}", "999999"):
        response = await api.get(QUERY, params={"source_ids": ids})
        assert response.status_code == 404, response.text
        assert response.json() == {
            "errors": f"Resource type source with id = {ids.split(',')[-1]} was not found"
        }
    everything = await rows(api)
    assert {row["source_id"] for row in everything["data"]} == {str(mine)}
    assert len(everything["data"]) == 3


async def test_no_sources_no_rows(api: Api, store: Recorded) -> None:
    assert await rows(api) == {"data": [], "pagination": {"next": None}}


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"query": '"unclosed'}, "query"),
        ({"query": "level:"}, "query"),
        ({"query": ":error"}, "query"),
        ({"batch": "0"}, "batch"),
        ({"batch": "1001"}, "batch"),
        ({"batch": "ten"}, "batch"),
        ({"order": "sideways"}, "order"),
        ({"from": "yesterday"}, "from"),
        ({"to": "2026-13-01"}, "to"),
        ({"from": "0001-01-01T00:00:00+01:00"}, "from"),
        ({"to": "9999-12-31T23:59:59-05:00"}, "to"),
        ({"from": "2026-01-01T00:00:00Z", "to": "2025-12-31T00:00:00Z"}, "from"),
        ({"source_ids": "1,abc"}, "source_ids"),
        ({"source_ids": ",".join(str(n) for n in range(1, 102))}, "source_ids"),
    ],
)
async def test_bad_parameters(
    api: Api, store: Recorded, params: dict[str, str], field: str
) -> None:
    messages, fields = errors(await api.get(QUERY, params=params))
    assert fields == [field]
    assert messages and messages[0].startswith(field)


@pytest.mark.parametrize("value", [*HOSTILE_TIMES, "1969-12-31", "2200-01-01T00:00:01Z"])
@pytest.mark.parametrize("field", ["from", "to"])
async def test_a_time_that_cannot_be_read_or_held_is_a_422_naming_it(
    api: Api, store: Recorded, field: str, value: str
) -> None:
    messages, fields = errors(await api.get(QUERY, params={field: value}))
    assert fields == [field]
    assert messages[0].startswith(f"{field} must "), messages


async def test_times_in_the_forms_rfc_3339_allows_are_read(api: Api, store: Recorded) -> None:
    for since in ("2026-01-01t00:00:00z", "2026-01-01 00:00:00 UTC", "2026-01-01T01:00:00+01:00"):
        body = await rows(api, **{"from": since, "to": "2026-01-01T00:30:00Z"})
        assert body["data"] == [], since


async def test_token_required(api: Api, store: Recorded) -> None:
    response = await api.client.get(QUERY)
    assert response.status_code == 401
    assert isinstance(response.json()["errors"], str)


async def test_event_that_is_not_an_object(app: FastAPI, api: Api, store: Recorded) -> None:
    source = await new_source(api)
    event = log_event(source, api.team_id, now(app) - timedelta(seconds=1), {"message": "x"})
    await store.append(
        [type(event)(**{**{f: getattr(event, f) for f in event.__slots__}, "raw": b'"just text"'})]
    )
    body = await rows(api, source_ids=str(source))
    assert body["data"] == [
        {
            "dt": (now(app) - timedelta(seconds=1))
            .astimezone(UTC)
            .strftime("%Y-%m-%d %H:%M:%S.%f"),
            "source_id": str(source),
            "message": "just text",
        }
    ]


VOCABULARY = ["alpha", "beta", "Gamma", "delta", "ALPHA-2", "é-accent"]


async def test_random_queries_match_the_reference(app: FastAPI, api: Api, store: Recorded) -> None:
    """Seeded random events and queries (words, phrases, fields, prefixes, exclusions): the
    engine's answer through the API is the reference matcher's, in the same order."""
    rng = random.Random(13)
    source = await new_source(api)
    start = now(app) - timedelta(minutes=20)
    await store.append(
        [
            log_event(
                source,
                api.team_id,
                start + timedelta(seconds=10 * n),
                {
                    "message": " ".join(rng.choices(VOCABULARY, k=3)),
                    "level": rng.choice(["info", "error", "warn"]),
                    "ctx": {"host": rng.choice(["web-1", "web-2", "db-1"]), "n": n % 4},
                    **({"tag": rng.choice(VOCABULARY)} if n % 3 else {}),
                },
            )
            for n in range(80)
        ]
    )
    for _ in range(25):
        terms: list[Term] = []
        for _ in range(rng.randint(1, 3)):
            negated = rng.random() < 0.3
            kind = rng.randrange(4)
            if kind == 0:
                terms.append(Word(rng.choice(VOCABULARY).lower()[: rng.randint(2, 5)], negated))
            elif kind == 1:
                terms.append(Word(" ".join(rng.choices(VOCABULARY, k=2)), negated))
            elif kind == 2:
                path, values = rng.choice(
                    [
                        ("level", ["INFO", "error"]),
                        ("ctx.host", ["web-1", "web-*", "db*"]),
                        ("ctx.n", ["0", "3"]),
                        ("tag", ["alpha", "*", "be*"]),
                    ]
                )
                terms.append(Field(path, rng.choice(values), negated))
            else:
                terms.append(Field("missing.path", "*", negated))
        query = unparse(terms)
        body = await rows(api, source_ids=str(source), query=query, batch="1000")
        expected = reference_search(
            store.events,
            Search(
                [source], terms, since=now(app) - timedelta(minutes=30), until=now(app), limit=1000
            ),
        )
        got = [(row["dt"], row["message"]) for row in body["data"]]
        assert got == [
            (format_dt(event.dt), orjson.loads(event.raw)["message"]) for event in expected
        ], query
