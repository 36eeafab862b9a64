"""/policies/groups and /policies/urgency-groups over HTTP: created, renamed and deleted
through the API's plain-group services (their problems beside the fields, deleting a group
takes its members out of it), the members listed and linked; roles, other teams' groups,
audit entries."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import audit_entries, person
from tests.factories.api import Api, data
from watchpost.policies.models import Policy, PolicyGroup
from watchpost.urgencies.models import Urgency, UrgencyGroup


async def _console_actions(app: FastAPI, team: str = "acme") -> list[str]:
    entries = await audit_entries(app, team)
    return [e.action for e in entries if e.actor_kind == "person" and e.action != "session.created"]


async def _policy_groups(app: FastAPI) -> list[tuple[str, int | None]]:
    async with app.state.ctx.db.read_sessions() as db:
        found = await db.scalars(select(PolicyGroup).order_by(PolicyGroup.id))
        return [(g.name, g.sort_index) for g in found]


async def test_a_policy_group_is_made_renamed_and_deleted_with_its_policies_listed(
    app: FastAPI, api: Api
) -> None:
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        listing = await admin.get("/policies")
        assert 'href="/policies/groups"' in listing.text
        empty = await admin.get("/policies/groups")
        assert empty.status_code == 200 and "no policy group" in empty.text
        wrong = await admin.post(
            "/policies/groups/new", data={"csrf": csrf, "name": " ", "sort_index": "first"}
        )
        assert wrong.status_code == 422
        assert 'id="name-error"' in wrong.text and 'id="sort_index-error"' in wrong.text
        assert 'value="first"' in wrong.text  # kept as typed
        assert await _policy_groups(app) == []
        made = await admin.post(
            "/policies/groups/new", data={"csrf": csrf, "name": "Ops", "sort_index": "2"}
        )
        assert made.status_code == 303
        path = made.headers["location"]
        group_id = int(path.rsplit("/", 1)[1])
        body = {"name": "Shop", "policy_group_id": group_id}
        policy = data(await api.post("/api/v3/policies", body), 201)
        link = f'<a href="/policies/{policy["id"]}">Shop</a>'
        page = await admin.get(path)
        assert page.status_code == 200 and link in page.text
        assert link in (await admin.get("/policies/groups")).text
        assert f'<a href="{path}">Ops</a>' in (await admin.get(f"/policies/{policy['id']}")).text
        renamed = await admin.post(
            f"{path}/edit", data={"csrf": csrf, "name": "Ops team", "sort_index": ""}
        )
        assert renamed.status_code == 303
        assert await _policy_groups(app) == [("Ops team", None)]
        blank = await admin.post(f"{path}/edit", data={"csrf": csrf, "name": "", "sort_index": ""})
        assert blank.status_code == 422 and 'id="name-error"' in blank.text
        asked = await admin.post(f"{path}/delete", data={"csrf": csrf})
        assert asked.status_code == 200 and "Delete the policy group" in asked.text
        assert len(await _policy_groups(app)) == 1
        done = await admin.post(f"{path}/delete", data={"csrf": csrf, "confirm": "yes"})
        assert done.status_code == 303
    assert await _policy_groups(app) == []
    async with app.state.ctx.db.read_sessions() as db:
        [stored] = await db.scalars(select(Policy))
    assert stored.policy_group_id is None  # out of the deleted group
    expected = ["policy_group.created", "policy_group.updated", "policy_group.deleted"]
    assert await _console_actions(app) == expected


async def test_an_urgency_group_lists_its_urgencies_for_editors_and_readers(
    app: FastAPI, api: Api
) -> None:
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        assert 'href="/policies/urgency-groups"' in (await admin.get("/policies/urgencies")).text
        made = await admin.post(
            "/policies/urgency-groups/new", data={"csrf": csrf, "name": "Loud", "sort_index": ""}
        )
        assert made.status_code == 303
        path = made.headers["location"]
        group_id = int(path.rsplit("/", 1)[1])
        body = {"name": "Wake", "call": True, "urgency_group_id": group_id}
        urgency = data(await api.post("/api/v2/urgencies", body), 201)
        page = await admin.get(path)
        assert f'href="/policies/urgencies/{urgency["id"]}/edit">Wake</a>' in page.text
        done = await admin.post(f"{path}/delete", data={"csrf": csrf, "confirm": "yes"})
        assert done.status_code == 303
    async with app.state.ctx.db.read_sessions() as db:
        assert list(await db.scalars(select(UrgencyGroup))) == []
        [stored] = await db.scalars(select(Urgency))
    assert stored.urgency_group_id is None
    assert await _console_actions(app) == ["urgency_group.created", "urgency_group.deleted"]
    kept = await api.post("/api/v2/urgency-groups", {"name": "Quiet"})
    group = data(kept, 201)
    await api.patch(f"/api/v2/urgencies/{urgency['id']}", {"urgency_group_id": int(group["id"])})
    async with person(app, "vera@example.com", "viewer") as (viewer, _):
        page = await viewer.get(f"/policies/urgency-groups/{group['id']}")
        assert f'href="/policies/urgencies#urgency-{urgency["id"]}">Wake</a>' in page.text
        assert "/edit" not in page.text and "/delete" not in page.text
        urgencies = await viewer.get("/policies/urgencies")
        assert f'id="urgency-{urgency["id"]}"' in urgencies.text


async def test_only_admins_change_groups_and_another_teams_is_a_404(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    mine = data(await api.post("/api/v2/policy-groups", {"name": "Mine"}), 201)
    theirs = data(await other_api.post("/api/v2/policy-groups", {"name": "Theirs"}), 201)
    their_urgency_group = data(await other_api.post("/api/v2/urgency-groups", {"name": "T"}), 201)
    form = {"name": "Changed", "sort_index": "", "confirm": "yes"}
    async with person(app, "vera@example.com", "viewer") as (viewer, csrf):
        listing = await viewer.get("/policies/groups")
        assert listing.status_code == 200 and "Mine" in listing.text
        assert "Theirs" not in listing.text and "/policies/groups/new" not in listing.text
        assert (await viewer.get(f"/policies/groups/{mine['id']}")).status_code == 200
    async with person(app, "rita@example.com", "responder") as (responder, csrf):
        refused = await responder.post("/policies/groups/new", data={"csrf": csrf, **form})
        assert refused.status_code == 403
        for action in ("edit", "delete"):
            answer = await responder.post(
                f"/policies/groups/{mine['id']}/{action}", data={"csrf": csrf, **form}
            )
            assert answer.status_code == 403
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        for path in (
            f"/policies/groups/{theirs['id']}",
            f"/policies/urgency-groups/{their_urgency_group['id']}",
        ):
            assert (await admin.get(path)).status_code == 404
            for action in ("edit", "delete"):
                answer = await admin.post(f"{path}/{action}", data={"csrf": csrf, **form})
                assert answer.status_code == 404
        assert (await admin.get("/policies/groups/abc")).status_code == 404
    assert await _policy_groups(app) == [("Mine", None), ("Theirs", None)]
    assert await _console_actions(app) == []
