"""/sources: an admin lists, creates (the token shown once, with examples naming this
server's ingest address), changes retention and deletes sources; roles below admin are
refused on the server; another team's source is a 404."""

from __future__ import annotations

import re

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import actions, audit_entries, person
from tests.factories.api import Api
from tests.factories.log_ingest import create_source, send
from watchpost.sources.models import Source

_TOKEN = re.compile(r'<code id="source-token" class="secret">(wps_[^<]+)</code>')


async def _sources(app: FastAPI) -> list[Source]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(await db.scalars(select(Source).order_by(Source.id)))


async def test_a_source_is_created_its_token_shown_once_and_it_takes_logs(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        form = await admin.get("/sources/new")
        assert form.status_code == 200 and 'for="name"' in form.text
        created = await admin.post(
            "/sources",
            data={
                "csrf": csrf,
                "name": "  Checkout  ",
                "platform": "python",
                "logs_retention": "7",
                "metrics_retention": "14",
            },
        )
        assert created.status_code == 200, created.text[:500]
        found = _TOKEN.search(created.text)
        assert found is not None
        token = found.group(1)
        assert "shown only this once" in created.text
        # ready to paste: this server's real ingest address with its scheme, and the token
        assert "curl -X POST &#39;http://testserver/&#39;" in created.text
        assert "host=&#39;http://testserver&#39;" in created.text  # logtail-python
        assert "uri = &#34;http://testserver/&#34;" in created.text  # Vector
        assert "endpoint: http://testserver" in created.text  # OpenTelemetry Collector
        assert created.text.count(token) >= 4
        [source] = await _sources(app)
        listed = await admin.get("/sources")
        shown = await admin.get(f"/sources/{source.id}")
    assert source.name == "Checkout" and source.platform == "python"
    assert (source.logs_retention, source.metrics_retention) == (7, 14)
    for page in (listed, shown):
        assert page.status_code == 200 and "Checkout" in page.text
        assert token not in page.text  # never again
    assert "$SOURCE_TOKEN" in shown.text and "http://testserver" in shown.text
    sent = await send(client, token, b'{"message": "hello"}')
    assert sent.status_code == 202, sent.text
    [entry] = [e for e in await audit_entries(app) if e.action == "source.created"]
    assert entry.actor == "ann@example.com" and entry.subject == "Checkout"
    assert entry.subject_id == source.id


async def test_bad_input_is_shown_beside_its_field_and_nothing_is_written(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        answer = await admin.post(
            "/sources",
            data={
                "csrf": csrf,
                "name": "",
                "platform": "nonsense",
                "logs_retention": "0",
                "metrics_retention": "many",
            },
        )
    assert answer.status_code == 422
    for name in ("name", "platform", "logs_retention", "metrics_retention"):
        assert f'id="{name}-error"' in answer.text, name
    assert 'value="many"' in answer.text  # what was typed is kept
    assert await _sources(app) == []
    assert await actions(app) == []


async def test_retention_is_changed_and_a_source_deleted_after_confirming(
    app: FastAPI, api: Api
) -> None:
    source_id, token = await create_source(api, "web")
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        bad = await admin.post(
            f"/sources/{source_id}",
            data={"csrf": csrf, "logs_retention": "99999", "metrics_retention": "30"},
        )
        assert bad.status_code == 422 and 'id="logs_retention-error"' in bad.text
        saved = await admin.post(
            f"/sources/{source_id}",
            data={"csrf": csrf, "logs_retention": "3", "metrics_retention": "30"},
        )
        assert saved.status_code == 303
        page = await admin.get(saved.headers["location"])
        assert "Saved." in page.text and token not in page.text
        [source] = await _sources(app)
        assert source.logs_retention == 3
        asked = await admin.post(f"/sources/{source_id}/delete", data={"csrf": csrf})
        assert asked.status_code == 200 and "Delete the source" in asked.text
        assert len(await _sources(app)) == 1
        done = await admin.post(
            f"/sources/{source_id}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert done.status_code == 303
    assert await _sources(app) == []
    assert await actions(app) == ["source.created", "source.updated", "source.deleted"]
    [updated] = [e for e in await audit_entries(app) if e.action == "source.updated"]
    assert updated.details == {"logs_retention": [30, 3]}


async def test_roles_below_admin_are_refused_and_nothing_changes(app: FastAPI, api: Api) -> None:
    source_id, _ = await create_source(api, "web")
    for role in ("viewer", "responder"):
        async with person(app, f"{role}@example.com", role) as (member, csrf):
            listed = await member.get("/sources")
            assert listed.status_code == 200 and "web" in listed.text
            assert "Create a source" not in listed.text
            answers = [
                await member.get("/sources/new"),
                await member.post("/sources", data={"csrf": csrf, "name": "x", "platform": "http"}),
                await member.post(
                    f"/sources/{source_id}",
                    data={"csrf": csrf, "logs_retention": "1", "metrics_retention": "1"},
                ),
                await member.post(
                    f"/sources/{source_id}/delete", data={"csrf": csrf, "confirm": "yes"}
                ),
            ]
            assert [a.status_code for a in answers] == [403] * 4, role
    [source] = await _sources(app)
    assert source.logs_retention == 30
    assert await actions(app) == ["source.created"]  # the API's, nothing of the members


async def test_another_teams_source_is_a_404_and_stays(app: FastAPI, other_api: Api) -> None:
    theirs, token = await create_source(other_api, "secret-app")
    async with person(app, "ann@example.com", "owner") as (admin, csrf):
        listed = await admin.get("/sources")
        answers = [
            await admin.get(f"/sources/{theirs}"),
            await admin.post(
                f"/sources/{theirs}",
                data={"csrf": csrf, "logs_retention": "1", "metrics_retention": "1"},
            ),
            await admin.post(f"/sources/{theirs}/delete", data={"csrf": csrf, "confirm": "yes"}),
            await admin.get(f"/logs?source={theirs}"),
            await admin.get(f"/metrics?source={theirs}"),
        ]
    assert "secret-app" not in listed.text
    assert [a.status_code for a in answers] == [404] * 5
    [source] = await _sources(app)
    assert source.logs_retention == 30 and token not in listed.text


async def test_the_list_is_paged(app: FastAPI, api: Api) -> None:
    for n in range(52):
        await create_source(api, f"s{n:02d}")
    async with person(app, "vera@example.com", "viewer") as (member, _):
        first = await member.get("/sources")
        second = await member.get("/sources?page=2")
    assert "s49" in first.text and "s50" not in first.text and "Next page" in first.text
    assert "s50" in second.text and "s51" in second.text and "Next page" not in second.text
