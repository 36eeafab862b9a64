"""/policies and /policies/urgencies over HTTP: the steps editor's buttons keep what was
typed and store nothing; saving goes through the API's service (its problems beside their
fields, nothing written); the summary in words; roles, other teams' objects, audit entries."""

from __future__ import annotations

import re
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import audit_entries, person
from tests.factories.api import Api, data
from tests.factories.delivery import create_member
from watchpost.policies.models import Policy
from watchpost.urgencies.models import Urgency

POLICIES = "/api/v3/policies"


async def _policies(app: FastAPI) -> list[Policy]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(await db.scalars(select(Policy).order_by(Policy.id)))


async def _urgencies(app: FastAPI) -> list[Urgency]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(await db.scalars(select(Urgency).order_by(Urgency.id)))


def _value(html: str, name: str) -> str:
    found = re.search(rf'name="{re.escape(name)}" value="([^"]*)"', html)
    assert found, f"no field {name}"
    return found.group(1)


def _form(csrf: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"csrf": csrf, "name": "Ops", "repeat_count": "0"}
    base |= {"repeat_delay": "0", "policy_group_id": "", "fallback_policy_id": ""}
    return base | fields


async def _by_people(app: FastAPI) -> list[str]:
    """The team's audit actions done in the console (not by API tokens), sign-ins aside."""
    entries = await audit_entries(app)
    return [e.action for e in entries if e.actor_kind == "person" and e.action != "session.created"]


async def _user_id(app: FastAPI, email: str) -> int:
    from tests.console.team_support import user_id

    return await user_id(app, email)


async def test_two_steps_are_typed_added_and_saved_with_their_summary(
    app: FastAPI, api: Api
) -> None:
    await create_member(app, "acme", "bob@example.com", "Bob Builder")
    loud = data(await api.post("/api/v2/urgencies", {"name": "Loud", "call": True}), 201)
    async with person(app, "ann@example.com", "admin", name="Ann Admin") as (admin, csrf):
        bob = await _user_id(app, "bob@example.com")
        new = await admin.get("/policies/new")
        assert new.status_code == 200 and 'name="step_count" value="1"' in new.text
        typed = _form(csrf, step_count="1", **{"steps-0-type": "escalation", "steps-0-wait": "0"})
        typed["steps-0-users"] = [str(bob)]
        added = await admin.post(
            "/policies/new", data={**typed, "op": "add", "new_step_type": "escalation"}
        )
        assert added.status_code == 200
        assert 'name="step_count" value="2"' in added.text and "Step 2: Tell people" in added.text
        assert re.search(rf'name="steps-0-users" value="{bob}" checked', added.text)
        assert await _policies(app) == []  # the button stored nothing
        saved = await admin.post(
            "/policies/new",
            data={
                **typed,
                "step_count": "2",
                "steps-1-type": "escalation",
                "steps-1-wait": "15",
                "steps-1-team": "on",
                "steps-1-urgency_id": str(loud["id"]),
                "repeat_count": "3",
                "repeat_delay": "10",
                "op": "save",
            },
        )
        assert saved.status_code == 303
        [policy] = await _policies(app)
        assert saved.headers["location"] == f"/policies/{policy.id}"
        assert policy.steps == [
            {"type": "escalation", "wait_before": 0, "step_members": [{"type": "user", "id": bob}]},
            {
                "type": "escalation",
                "wait_before": 900,
                "urgency_id": int(loud["id"]),
                "step_members": [{"type": "entire_team"}],
            },
        ]
        assert (policy.repeat_count, policy.repeat_delay) == (3, 600)
        summary = (
            "At once, e-mail Bob Builder; 15 min later, call and e-mail the whole team; "
            "then repeat 3 times, 10 min apart."
        )
        listed = await admin.get("/policies")
        page = await admin.get(f"/policies/{policy.id}")
    assert summary in listed.text and summary in page.text
    assert "No monitor or heartbeat uses it." in listed.text
    [entry] = [e for e in await audit_entries(app) if e.action == "policy.created"]
    assert entry.actor == "ann@example.com" and entry.subject == "Ops"
    assert entry.subject_id == policy.id


async def test_moving_and_removing_rows_keep_what_was_typed(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        rows = {
            "step_count": "3",
            "steps-0-type": "escalation",
            "steps-0-wait": "1",
            "steps-1-type": "instructions",
            "steps-1-wait": "2",
            "steps-1-instructions_comment": "Restart the shop",
            "steps-2-type": "resolve_remove",
            "steps-2-wait": "3",
            "steps-2-action_type": "remove_incident",
        }
        up = await admin.post("/policies/new", data={**_form(csrf, **rows), "op": "up-1"})
        assert up.status_code == 200
        assert _value(up.text, "steps-0-type") == "instructions"
        assert _value(up.text, "steps-0-wait") == "2"
        assert ">Restart the shop</textarea>" in up.text
        assert _value(up.text, "steps-1-type") == "escalation"
        down = await admin.post("/policies/new", data={**_form(csrf, **rows), "op": "down-1"})
        assert _value(down.text, "steps-1-type") == "resolve_remove"
        assert _value(down.text, "steps-2-wait") == "2"
        removed = await admin.post("/policies/new", data={**_form(csrf, **rows), "op": "remove-0"})
        assert 'name="step_count" value="2"' in removed.text
        assert _value(removed.text, "steps-0-type") == "instructions"
        assert _value(removed.text, "name") == "Ops"
    assert await _policies(app) == []


async def test_the_domains_problems_are_beside_their_fields_and_nothing_is_written(
    app: FastAPI, other_api: Api
) -> None:
    theirs = data(await other_api.post(POLICIES, {"name": "Theirs"}), 201)
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        answer = await admin.post(
            "/policies/new",
            data=_form(
                csrf,
                name="",
                step_count="2",
                **{
                    "steps-0-type": "escalation",
                    "steps-0-wait": "soon",
                    "steps-1-type": "time_branching",
                    "steps-1-time_from": "25:00",
                    "steps-1-policy_id": str(theirs["id"]),
                },
                fallback_policy_id=str(theirs["id"]),
            ),
        )
    assert answer.status_code == 422
    assert 'id="name-error"' in answer.text
    assert 'id="steps-0-wait-error"' in answer.text and "Step 1: wait" in answer.text
    assert 'id="steps-1-time_from-error"' in answer.text and "Step 2: time from" in answer.text
    assert _value(answer.text, "steps-0-wait") == "soon"  # kept as typed
    assert 'href="#steps-0-wait"' in answer.text  # the summary links to the field
    assert await _policies(app) == [] or all(p.name == "Theirs" for p in await _policies(app))
    async with person(app, "bob@example.com", "admin") as (admin, csrf):
        branch = await admin.post(
            "/policies/new",
            data=_form(
                csrf,
                step_count="1",
                **{"steps-0-type": "time_branching", "steps-0-policy_id": str(theirs["id"])},
            ),
        )
    assert branch.status_code == 422 and 'id="steps-0-policy_id-error"' in branch.text
    assert [p.name for p in await _policies(app)] == ["Theirs"]


async def test_edit_and_delete_go_through_the_service_with_audit_entries(
    app: FastAPI, api: Api
) -> None:
    made = data(
        await api.post(
            POLICIES,
            {
                "name": "Nightly",
                "steps": [{"type": "escalation", "step_members": [{"type": "entire_team"}]}],
            },
        ),
        201,
    )
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        form = await admin.get(f"/policies/{made['id']}/edit")
        assert form.status_code == 200 and 'name="steps-0-team" value="on" checked' in form.text
        saved = await admin.post(
            f"/policies/{made['id']}/edit",
            data=_form(
                csrf,
                name="Nightly ops",
                step_count="1",
                **{"steps-0-type": "escalation", "steps-0-wait": "5", "steps-0-team": "on"},
            ),
        )
        assert saved.status_code == 303
        [policy] = await _policies(app)
        assert policy.name == "Nightly ops" and policy.steps[0]["wait_before"] == 300
        asked = await admin.post(f"/policies/{made['id']}/delete", data={"csrf": csrf})
        assert asked.status_code == 200 and "Delete the policy" in asked.text
        assert len(await _policies(app)) == 1
        done = await admin.post(
            f"/policies/{made['id']}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert done.status_code == 303
    assert await _policies(app) == []
    assert await _by_people(app) == ["policy.updated", "policy.deleted"]


async def test_only_admins_change_policies_and_other_teams_are_404(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    ours = data(await api.post(POLICIES, {"name": "Ours"}), 201)
    theirs = data(await other_api.post(POLICIES, {"name": "Theirs"}), 201)
    one = {"step_count": "0"}
    for role in ("viewer", "responder"):
        async with person(app, f"{role}@example.com", role) as (client, csrf):
            assert (await client.get("/policies")).status_code == 200
            assert (await client.get(f"/policies/{ours['id']}")).status_code == 200
            assert (await client.get("/policies/new")).status_code == 403
            created = await client.post("/policies/new", data=_form(csrf, **one))
            edited = await client.post(
                f"/policies/{ours['id']}/edit", data=_form(csrf, name="Mine", **one)
            )
            deleted = await client.post(
                f"/policies/{ours['id']}/delete", data={"csrf": csrf, "confirm": "yes"}
            )
            assert created.status_code == edited.status_code == deleted.status_code == 403
            listed = await client.get("/policies")
            assert "New escalation policy" not in listed.text
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        assert (await admin.get(f"/policies/{theirs['id']}")).status_code == 404
        assert (await admin.get(f"/policies/{theirs['id']}/edit")).status_code == 404
        edited = await admin.post(
            f"/policies/{theirs['id']}/edit", data=_form(csrf, name="Mine", **one)
        )
        deleted = await admin.post(
            f"/policies/{theirs['id']}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert edited.status_code == deleted.status_code == 404
        assert "Theirs" not in (await admin.get("/policies")).text
        assert (await admin.get("/policies/nonsense")).status_code == 404
    assert sorted(p.name for p in await _policies(app)) == ["Ours", "Theirs"]
    assert await _by_people(app) == []


async def test_the_list_names_the_monitors_using_each_policy(app: FastAPI, api: Api) -> None:
    from tests.factories.monitors import create_monitor

    policy = data(await api.post(POLICIES, {"name": "Shop"}), 201)
    for n in range(7):
        await create_monitor(
            api,
            url=f"https://shop{n}.example.com",
            pronounceable_name=f"Shop {n}",
            policy_id=policy["id"],
        )
    await api.post("/api/v2/heartbeats", {"name": "Backup", "policy_id": policy["id"]})
    async with person(app, "vera@example.com", "viewer") as (client, _):
        listed = await client.get("/policies")
        page = await client.get(f"/policies/{policy['id']}")
    assert listed.status_code == 200
    assert "Shop 0" in listed.text and "Shop 4" in listed.text and "Shop 5" not in listed.text
    assert "Backup" in listed.text and "and 2 more" in listed.text
    assert "Backup" in page.text


# ------------------------------------------------------------------------------ urgencies


async def test_urgencies_are_created_checked_edited_and_deleted(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    theirs = data(await other_api.post("/api/v2/urgencies", {"name": "Theirs"}), 201)
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        empty = await admin.post(
            "/policies/urgencies/new", data={"csrf": csrf, "name": " ", "sms": "on"}
        )
        assert empty.status_code == 422 and 'id="name-error"' in empty.text
        assert re.search(r'id="sms" name="sms" value="on"[^>]*checked', empty.text)
        made = await admin.post(
            "/policies/urgencies/new",
            data={"csrf": csrf, "name": "Wake me", "call": "on", "email": "on"},
        )
        assert made.status_code == 303
        [urgency] = [u for u in await _urgencies(app) if u.name == "Wake me"]
        assert (urgency.call, urgency.email, urgency.sms, urgency.push) == (
            True,
            True,
            False,
            False,
        )
        listed = await admin.get("/policies/urgencies")
        assert "Wake me" in listed.text and "Phone call, E-mail" in listed.text
        assert "Theirs" not in listed.text
        edited = await admin.post(
            f"/policies/urgencies/{urgency.id}/edit",
            data={"csrf": csrf, "name": "Wake me up", "sms": "on"},
        )
        assert edited.status_code == 303
        other = await admin.post(
            f"/policies/urgencies/{theirs['id']}/edit", data={"csrf": csrf, "name": "Mine"}
        )
        assert other.status_code == 404
        gone = await admin.post(
            f"/policies/urgencies/{theirs['id']}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert gone.status_code == 404
        done = await admin.post(
            f"/policies/urgencies/{urgency.id}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert done.status_code == 303
    assert [u.name for u in await _urgencies(app)] == ["Theirs"]
    assert await _by_people(app) == ["urgency.created", "urgency.updated", "urgency.deleted"]


async def test_an_urgency_delete_form_says_when_the_browser_confirmed(
    app: FastAPI, api: Api
) -> None:
    """The list's Delete form carries the confirm field that console.js sets to "yes" once
    the browser's dialog is accepted (as every confirmed_post form does)."""
    ours = data(await api.post("/api/v2/urgencies", {"name": "Ours"}), 201)
    async with person(app, "ann@example.com", "admin") as (admin, _):
        listed = await admin.get("/policies/urgencies")
    action = f'action="/policies/urgencies/{ours["id"]}/delete"'
    found = re.search(rf"<form [^>]*{re.escape(action)}>(.*?)</form>", listed.text, re.S)
    assert found, "no delete form"
    assert '<input type="hidden" name="confirm" value="" data-set-when-confirmed>' in found[1]


async def test_only_admins_change_urgencies(app: FastAPI, api: Api) -> None:
    ours = data(await api.post("/api/v2/urgencies", {"name": "Ours"}), 201)
    async with person(app, "rita@example.com", "responder") as (client, csrf):
        assert (await client.get("/policies/urgencies")).status_code == 200
        made = await client.post("/policies/urgencies/new", data={"csrf": csrf, "name": "X"})
        edited = await client.post(
            f"/policies/urgencies/{ours['id']}/edit", data={"csrf": csrf, "name": "X"}
        )
        deleted = await client.post(
            f"/policies/urgencies/{ours['id']}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
    assert made.status_code == edited.status_code == deleted.status_code == 403
    assert [(u.name, u.email) for u in await _urgencies(app)] == [("Ours", True)]
    assert await _by_people(app) == []


async def test_a_form_without_its_token_changes_nothing(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, _):
        answer = await admin.post("/policies/new", data=_form("wrong", step_count="0"))
    assert answer.status_code == 403 and await _policies(app) == []
