"""/team/settings (owners) beyond two-factor: renaming the team (unique, audited, errors
beside the field), single sign-on shown read-only as configured (the client secret never),
and how long the team's data is kept; and the audit log's filters (who, what, when)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from pydantic import SecretStr
from sqlalchemy import select

from tests.console.team_support import actions, audit_entries, person
from tests.factories.api import Api, data
from watchpost.audit.service import Actor, record
from watchpost.clock import FrozenClock
from watchpost.teams.models import Team
from watchpost.teams.service import get_or_create_team


async def _team_names(app: FastAPI) -> set[str]:
    async with app.state.ctx.db.read_sessions() as db:
        return set(await db.scalars(select(Team.name)))


async def test_an_owner_renames_the_team(app: FastAPI, clock: FrozenClock) -> None:
    async with app.state.ctx.db.write_sessions() as db, db.begin():
        await get_or_create_team(db, name="Globex", now=clock.now())
    async with person(app, "olga@example.com", "owner") as (client, csrf):
        page = await client.get("/team/settings")
        assert 'id="name" name="name" value="acme"' in page.text

        for typed, message in (
            ("   ", "Name the team"),
            ("x" * 256, "Use at most 255 characters"),
            ("GLOBEX", "Another team has this name"),
        ):
            answer = await client.post("/team/name", data={"csrf": csrf, "name": typed})
            assert answer.status_code == 422
            assert f"</span> {message}</p>" in answer.text  # beside the field
            assert 'aria-invalid="true"' in answer.text
        assert await _team_names(app) == {"acme", "Globex"}

        done = await client.post("/team/name", data={"csrf": csrf, "name": "  Acme   Ops "})
        assert done.status_code == 303 and done.headers["location"] == "/team/settings?saved=1"
        assert await _team_names(app) == {"Acme Ops", "Globex"}
        assert "<h1>Settings of Acme Ops</h1>" in (await client.get("/team/settings")).text
        # The same name again changes nothing and records nothing.
        await client.post("/team/name", data={"csrf": csrf, "name": "Acme Ops"})
    renamed = [e for e in await audit_entries(app, "Acme Ops") if e.action == "team.renamed"]
    assert len(renamed) == 1 and renamed[0].details == {"from": "acme", "to": "Acme Ops"}


async def test_only_owners_rename(app: FastAPI) -> None:
    for role in ("admin", "viewer"):
        async with person(app, f"{role}@example.com", role) as (client, csrf):
            refused = await client.post("/team/name", data={"csrf": csrf, "name": "Mine now"})
            assert refused.status_code == 403
    async with person(app, "olga@example.com", "owner") as (client, _):
        forged = await client.post("/team/name", data={"name": "No token"})
        assert forged.status_code == 403
    assert "acme" in await _team_names(app)
    assert "team.renamed" not in await actions(app)


async def test_sso_is_shown_as_configured_without_its_secret(app: FastAPI) -> None:
    async with person(app, "olga@example.com", "owner") as (client, _):
        assert "Not configured" in (await client.get("/team/settings")).text
        settings = app.state.ctx.settings
        settings.oidc_issuer = "https://id.example.com"
        settings.oidc_client_id = "watchpost-console"
        settings.oidc_client_secret = SecretStr("hunter2-very-secret")
        settings.oidc_teams = (
            "example.com=ACME:responder, corp.example=acme:admin, x.org=Other:viewer"
        )
        settings.__dict__.pop("oidc_team_map", None)
        page = (await client.get("/team/settings")).text
    assert "https://id.example.com" in page and "watchpost-console" in page
    assert "hunter2" not in page
    assert "<strong>example.com</strong>, as responder" in page
    assert "<strong>corp.example</strong>, as admin" in page
    assert "x.org" not in page and "Other" not in page  # another team's grant
    assert "WATCHPOST_OIDC_TEAMS</code> with it" in page  # renaming would cut it off


async def test_retention_figures(app: FastAPI, api: Api) -> None:
    data(
        await api.post(
            "/api/v1/sources",
            {"name": "Shop logs", "platform": "http", "logs_retention": 7, "metrics_retention": 90},
        ),
        201,
    )
    async with person(app, "olga@example.com", "owner") as (client, _):
        page = (await client.get("/team/settings")).text
    assert "How long data is kept" in page
    assert (
        "<td>Every check&#39;s result (response time, status, error)</td><td>24 hours</td>" in page
    )
    assert "<td>Hourly figures (availability, response times)</td><td>400 days</td>" in page
    assert "deliveries and their attempts</td><td>30 days</td>" in page
    assert 'Shop logs <span class="muted">(source)</span></td><td class="num">7 days</td>' in page
    assert '<td class="num">90 days</td>' in page


async def _entries(app: FastAPI, clock: FrozenClock) -> None:
    async with app.state.ctx.db.write_sessions() as db, db.begin():
        team = await get_or_create_team(db, name="acme", now=clock.now())
        for n, (who, action, day) in enumerate(
            (
                (Actor("person", "bob@example.com", 1), "monitor.paused", 1),
                (Actor("token", "wp_abcdefghi…", 7), "monitor.created", 2),
                (Actor("token", "wp_abcdefghi…", 7), "heartbeat.created", 3),
                (Actor("person", "carol@example.com", 2), "monitors_more.x", 3),
            )
        ):
            await record(
                db,
                team_id=team.id,
                actor=who,
                action=action,
                now=datetime(2026, 3, day, 12, tzinfo=UTC) + timedelta(minutes=n),
                subject=f"subject-{n}",
            )


async def test_the_audit_log_filters(app: FastAPI, clock: FrozenClock) -> None:
    await _entries(app, clock)
    async with person(app, "ann@example.com", "admin") as (client, _):

        async def shown(**query: str) -> list[str]:
            page = await client.get("/team/audit", params=query)
            assert page.status_code == 200
            return [f"subject-{n}" for n in range(4) if f">subject-{n}<" in page.text]

        assert await shown() == ["subject-0", "subject-1", "subject-2", "subject-3"]
        assert await shown(actor="BOB@") == ["subject-0"]
        assert await shown(actor="wp_abc") == ["subject-1", "subject-2"]
        assert await shown(action="monitor") == ["subject-0", "subject-1"]  # not monitors_more
        assert await shown(action="monitor.created") == ["subject-1"]
        assert await shown(action="%") == []  # a wildcard is a plain character
        assert await shown(since="2026-03-02", until="2026-03-02") == ["subject-1"]
        assert await shown(since="2026-03-03") == ["subject-2", "subject-3"]
        assert await shown(until="2026-03-01", actor="bob") == ["subject-0"]
        assert await shown(since="not a day") == [
            "subject-0",
            "subject-1",
            "subject-2",
            "subject-3",
        ]
        page = await client.get("/team/audit", params={"action": "nothing.like.this"})
        assert "No entry matches these filters." in page.text
        assert 'href="/team/audit">Clear filters</a>' in page.text

        # The filters stay on the pages' links.
        paged = await client.get("/team/audit", params={"actor": "wp_", "per_page": "25"})
        assert 'value="wp_"' in paged.text
        many = await client.get(
            "/team/audit", params={"actor": "wp_", "page": "2", "per_page": "25"}
        )
        assert "actor=wp_" in many.text


async def test_a_person_changes_their_name(app: FastAPI) -> None:
    async with person(app, "vic@example.com", "viewer", name="Vic") as (client, csrf):
        assert 'id="name" name="name" value="Vic"' in (await client.get("/account")).text
        empty = await client.post("/account/name", data={"csrf": csrf, "name": "  "})
        assert empty.status_code == 422 and "</span> Type your name</p>" in empty.text
        long = await client.post("/account/name", data={"csrf": csrf, "name": "v" * 300})
        assert long.status_code == 422 and "Use at most 255 characters" in long.text
        forged = await client.post("/account/name", data={"name": "Forged"})
        assert forged.status_code == 403
        done = await client.post("/account/name", data={"csrf": csrf, "name": " Vic  Lee "})
        assert done.headers["location"] == "/account?done=saved"
        page = (await client.get(done.headers["location"])).text
        assert "<dd>Vic Lee</dd>" in page and "Saved." in page
    assert "person.renamed" in await actions(app)
