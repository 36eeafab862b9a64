"""/team: the members list, changing roles and removing members, and who may do which
(refused also by a direct POST: 403, nothing changed)."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.console.team_support import actions, audit_entries, person, role_of, user_id
from tests.factories.console import add_person
from watchpost.people import accounts, second_factor


async def test_members_list_names_emails_roles_and_two_factor(app: FastAPI) -> None:
    await add_person(app, email="bo@example.com", role="viewer", name="Bo Viewer")
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as db, db.begin():
        bo = await accounts.by_email(db, "bo@example.com")
        assert bo is not None
        secret = second_factor.new_secret()
        await second_factor.enable(db, user=bo, secret=secret, box=ctx.box, now=ctx.clock.now())
    async with person(app, "ann@example.com", "admin", name="Ann Admin") as (client, _):
        page = await client.get("/team")
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-store"
    text = page.text
    assert text.count("<h1>") == 1 and "Team acme" in text
    for shown in ("Ann Admin", "ann@example.com", "Bo Viewer", "bo@example.com"):
        assert shown in text
    rows = text.split("<tr>")
    [bo_row] = [row for row in rows if "bo@example.com" in row]
    [ann_row] = [row for row in rows if "ann@example.com" in row]
    assert "Two-factor on" in bo_row and "Two-factor off" in ann_row
    # An admin may give every role but owner.
    assert 'value="owner"' not in text and 'value="admin"' in text
    assert 'label for="email">Email<' in text and 'label for="role">Role<' in text


@pytest.mark.parametrize("role", ["viewer", "responder"])
async def test_viewers_and_responders_are_refused_every_team_page_and_action(
    app: FastAPI, role: str
) -> None:
    await add_person(app, email="bo@example.com", role="viewer")
    bo = await user_id(app, "bo@example.com")
    async with person(app, "ann@example.com", role) as (client, token):
        home = await client.get("/")
        assert 'href="/team"' not in home.text  # no link to it in the navigation
        for path in ("/team", "/team/tokens", "/team/audit", "/team/settings"):
            assert (await client.get(path)).status_code == 403, path
        posts = {
            f"/team/members/{bo}/role": {"role": "admin"},
            f"/team/members/{bo}/remove": {"confirm": "yes"},
            "/team/invitations": {"email": "cy@example.com", "name": "Cy", "role": "viewer"},
            "/team/tokens": {"name": "CI"},
            "/team/settings": {"require_two_factor": "on"},
        }
        for path, form in posts.items():
            answer = await client.post(path, data={"csrf": token, **form})
            assert answer.status_code == 403, path
            assert "Not allowed" in answer.text
    assert await role_of(app, "bo@example.com") == "viewer"
    assert await role_of(app, "cy@example.com") is None
    assert await actions(app) == []


async def test_an_admin_changes_a_role_and_it_is_recorded(app: FastAPI) -> None:
    await add_person(app, email="bo@example.com", role="viewer")
    bo = await user_id(app, "bo@example.com")
    async with person(app, "ann@example.com", "admin") as (client, token):
        answer = await client.post(
            f"/team/members/{bo}/role", data={"csrf": token, "role": "responder"}
        )
        assert answer.status_code == 303 and answer.headers["location"] == "/team"
    assert await role_of(app, "bo@example.com") == "responder"
    [entry] = [e for e in await audit_entries(app) if e.action == "member.role_changed"]
    assert entry.actor == "ann@example.com" and entry.actor_kind == "person"
    assert entry.subject == "bo@example.com" and entry.subject_id == bo
    assert entry.details == {"from": "viewer", "to": "responder"}


async def test_an_admin_can_neither_grant_nor_take_owner(app: FastAPI) -> None:
    await add_person(app, email="bo@example.com", role="viewer")
    await add_person(app, email="olga@example.com", role="owner")
    bo, olga = await user_id(app, "bo@example.com"), await user_id(app, "olga@example.com")
    async with person(app, "ann@example.com", "admin") as (client, token):
        grant = await client.post(f"/team/members/{bo}/role", data={"csrf": token, "role": "owner"})
        take = await client.post(
            f"/team/members/{olga}/role", data={"csrf": token, "role": "viewer"}
        )
        remove = await client.post(
            f"/team/members/{olga}/remove", data={"csrf": token, "confirm": "yes"}
        )
        invite = await client.post(
            "/team/invitations",
            data={"csrf": token, "email": "cy@example.com", "name": "Cy", "role": "owner"},
        )
    assert grant.status_code == take.status_code == remove.status_code == 403
    assert invite.status_code == 422 and "Only owners can invite an owner" in invite.text
    assert await role_of(app, "bo@example.com") == "viewer"
    assert await role_of(app, "olga@example.com") == "owner"
    assert await role_of(app, "cy@example.com") is None
    assert await actions(app) == []


async def test_an_owner_grants_owner_and_the_last_owner_stays(app: FastAPI) -> None:
    await add_person(app, email="bo@example.com", role="admin")
    bo = await user_id(app, "bo@example.com")
    async with person(app, "olga@example.com", "owner") as (client, token):
        olga = await user_id(app, "olga@example.com")
        assert 'value="owner"' in (await client.get("/team")).text
        refused = await client.post(
            f"/team/members/{olga}/role", data={"csrf": token, "role": "admin"}
        )
        assert refused.status_code == 422
        assert "A team keeps at least one owner" in refused.text
        assert 'href="#role-' in refused.text  # the error summary links to the field
        kept = await client.post(
            f"/team/members/{olga}/remove", data={"csrf": token, "confirm": "yes"}
        )
        assert kept.status_code == 422 and "at least one owner" in kept.text
        assert await role_of(app, "olga@example.com") == "owner"
        granted = await client.post(
            f"/team/members/{bo}/role", data={"csrf": token, "role": "owner"}
        )
        assert granted.status_code == 303
    assert await role_of(app, "bo@example.com") == "owner"
    assert await actions(app) == ["member.role_changed"]


async def test_removing_asks_first_then_removes(app: FastAPI) -> None:
    await add_person(app, email="bo@example.com", role="responder", name="Bo Brown")
    bo = await user_id(app, "bo@example.com")
    async with person(app, "ann@example.com", "admin") as (client, token):
        asked = await client.post(f"/team/members/{bo}/remove", data={"csrf": token})
        assert asked.status_code == 200
        assert "Remove Bo Brown (bo@example.com) from acme?" in asked.text
        assert 'name="confirm" value="yes"' in asked.text
        assert await role_of(app, "bo@example.com") == "responder"
        done = await client.post(
            f"/team/members/{bo}/remove", data={"csrf": token, "confirm": "yes"}
        )
        assert done.status_code == 303
        assert "bo@example.com" not in (await client.get("/team")).text
    assert await role_of(app, "bo@example.com") is None
    assert await actions(app) == ["member.removed"]


async def test_a_removed_member_loses_the_team_at_once(app: FastAPI) -> None:
    async with person(app, "bo@example.com", "admin") as (bo_client, _):
        assert (await bo_client.get("/team")).status_code == 200
        bo = await user_id(app, "bo@example.com")
        async with person(app, "ann@example.com", "admin") as (client, token):
            await client.post(f"/team/members/{bo}/remove", data={"csrf": token, "confirm": "yes"})
        assert (await bo_client.get("/team")).status_code == 403  # a member of no team


async def test_another_teams_member_is_a_404(app: FastAPI) -> None:
    await add_person(app, email="gus@example.com", role="viewer", team="globex")
    gus = await user_id(app, "gus@example.com")
    async with person(app, "ann@example.com", "owner") as (client, token):
        for path, form in (
            (f"/team/members/{gus}/role", {"role": "admin"}),
            (f"/team/members/{gus}/remove", {"confirm": "yes"}),
        ):
            answer = await client.post(path, data={"csrf": token, **form})
            assert answer.status_code == 404, path
        for odd in ("abc", "99999999999999999999999", "-1"):
            answer = await client.post(
                f"/team/members/{odd}/role", data={"csrf": token, "role": "admin"}
            )
            assert answer.status_code == 404, odd
            assert "There is nothing here." in answer.text
    assert await role_of(app, "gus@example.com", "globex") == "viewer"


async def test_a_form_without_its_csrf_token_or_from_another_site_is_refused(
    app: FastAPI,
) -> None:
    await add_person(app, email="bo@example.com", role="viewer")
    bo = await user_id(app, "bo@example.com")
    async with person(app, "ann@example.com", "owner") as (client, token):
        missing = await client.post(f"/team/members/{bo}/role", data={"role": "admin"})
        forged = await client.post(
            f"/team/members/{bo}/role",
            data={"csrf": token, "role": "admin"},
            headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
        )
        no_token = await client.post("/team/tokens", data={"name": "CI"})
    assert missing.status_code == forged.status_code == no_token.status_code == 403
    assert await role_of(app, "bo@example.com") == "viewer"
    assert await actions(app) == []


async def test_signed_out_team_pages_send_to_sign_in(client: httpx.AsyncClient) -> None:
    answer = await client.get("/team/audit")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/login?next=%2Fteam%2Faudit"
