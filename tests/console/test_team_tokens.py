"""/team/tokens: an admin lists, creates (shown once) and revokes the team's API tokens; a
revoked token is refused by the API from the next request on."""

from __future__ import annotations

import re

import httpx
from fastapi import FastAPI

from tests.console.team_support import actions, audit_entries, person, tokens, user_id
from tests.factories.api import Api

_TOKEN = re.compile(r'<code id="new-token" class="secret">(wp_[^<]+)</code>')


async def test_a_token_is_shown_once_works_and_is_listed_by_its_prefix(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    async with person(app, "ann@example.com", "admin", name="Ann Admin") as (admin, csrf):
        created = await admin.post("/team/tokens", data={"csrf": csrf, "name": "  Terraform  "})
        assert created.status_code == 200
        found = _TOKEN.search(created.text)
        assert found is not None
        token = found.group(1)
        assert "shown only this once" in created.text
        listed = await admin.get("/team/tokens")
    assert token not in listed.text  # never again
    assert token[:12] + "…" in listed.text
    assert "Terraform" in listed.text and "Ann Admin" in listed.text and "Active" in listed.text
    [row] = await tokens(app)
    assert row.name == "Terraform" and row.created_by_id == await user_id(app, "ann@example.com")
    monitors = await client.get("/api/v2/monitors", headers={"Authorization": f"Bearer {token}"})
    assert monitors.status_code == 200
    [entry] = [e for e in await audit_entries(app) if e.action == "token.created"]
    assert entry.actor == "ann@example.com" and entry.subject == f"{token[:12]}… (Terraform)"


async def test_a_revoked_token_stops_working_at_once(app: FastAPI, api: Api) -> None:
    assert (await api.get("/api/v2/monitors")).status_code == 200
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        [row] = await tokens(app)
        page = await admin.get("/team/tokens")
        assert f"{api.token[:12]}…" in page.text and "Command line" in page.text
        asked = await admin.post(f"/team/tokens/{row.id}/revoke", data={"csrf": csrf})
        assert asked.status_code == 200 and "Revoke the token" in asked.text
        assert (await api.get("/api/v2/monitors")).status_code == 200  # not yet
        done = await admin.post(
            f"/team/tokens/{row.id}/revoke", data={"csrf": csrf, "confirm": "yes"}
        )
        assert done.status_code == 303
        assert "Revoked" in (await admin.get("/team/tokens")).text
    assert (await api.get("/api/v2/monitors")).status_code == 401
    [revoked] = await tokens(app)
    assert revoked.revoked_at is not None
    assert await actions(app) == ["token.revoked"]


async def test_a_token_needs_a_name(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        answer = await admin.post("/team/tokens", data={"csrf": csrf, "name": "   "})
        long = await admin.post("/team/tokens", data={"csrf": csrf, "name": "x" * 300})
    assert answer.status_code == long.status_code == 422
    assert 'id="name-error"' in answer.text and "Name the token" in answer.text
    assert "Use a shorter name" in long.text
    assert await tokens(app) == []


async def test_another_teams_token_is_a_404_and_stays(app: FastAPI, other_api: Api) -> None:
    async with person(app, "ann@example.com", "owner") as (admin, csrf):
        [theirs] = await tokens(app)
        listed = await admin.get("/team/tokens")
        answer = await admin.post(
            f"/team/tokens/{theirs.id}/revoke", data={"csrf": csrf, "confirm": "yes"}
        )
    assert other_api.token[:12] not in listed.text
    assert answer.status_code == 404
    assert (await other_api.get("/api/v2/monitors")).status_code == 200


async def test_a_responder_cannot_revoke_by_a_direct_post(app: FastAPI, api: Api) -> None:
    async with person(app, "rita@example.com", "responder") as (client, csrf):
        [row] = await tokens(app)
        answer = await client.post(
            f"/team/tokens/{row.id}/revoke", data={"csrf": csrf, "confirm": "yes"}
        )
    assert answer.status_code == 403
    assert (await api.get("/api/v2/monitors")).status_code == 200
    assert await actions(app) == []
