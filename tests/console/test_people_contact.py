"""/team/people/{id}: a member's contact page (e-mail, role, the ways Watchpost tells them,
their coming shifts, the policies naming them); a person renames themself, an admin anyone
in the team; another team's person is a 404."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import audit_entries, person, user_id
from tests.factories.api import Api, data
from tests.factories.delivery import create_member
from watchpost.teams.models import User


async def _name(app: FastAPI, email: str) -> str:
    async with app.state.ctx.db.read_sessions() as db:
        found = await db.scalar(select(User.name).where(User.email == email))
        assert found is not None
        return str(found)


async def test_the_page_shows_contact_ways_shifts_and_policies(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann Oncall")
    ann = await user_id(app, "ann@example.com")
    event = {
        "starts_at": "2026-01-02T00:00:00Z",
        "ends_at": "2026-01-03T00:00:00Z",
        "users": ["ann@example.com"],
    }
    assert (await api.post("/api/v2/on-calls/default/events", event)).status_code == 201
    step = {"type": "escalation", "step_members": [{"type": "user", "email": "ann@example.com"}]}
    data(await api.post("/api/v3/policies", {"name": "Direct", "steps": [step]}), 201)
    data(await api.post("/api/v2/urgencies", {"name": "Loud", "call": True}), 201)
    async with person(app, "vera@example.com", "viewer") as (viewer, _):
        page = await viewer.get(f"/team/people/{ann}")
    assert page.status_code == 200
    assert "Ann Oncall" in page.text and "ann@example.com" in page.text
    assert "Responder" in page.text or "Viewer" in page.text or "Admin" in page.text
    assert "an urgency of the team switches it on" in page.text  # calls
    assert "this instance has no call service" in page.text
    assert 'href="/on-call/' in page.text and "Fri 02 Jan, 00:00 UTC" in page.text
    assert 'href="/policies/' in page.text and ">Direct</a>" in page.text
    assert "Save name" not in page.text  # a viewer, not their page


async def test_a_person_renames_themself_an_admin_anyone(app: FastAPI) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann")
    ann = await user_id(app, "ann@example.com")
    async with person(app, "rita@example.com", "responder", name="Rita") as (rita, csrf):
        rita_id = await user_id(app, "rita@example.com")
        own = await rita.get(f"/team/people/{rita_id}")
        assert "Save name" in own.text
        done = await rita.post(f"/team/people/{rita_id}", data={"csrf": csrf, "name": " Rita  R "})
        assert done.status_code == 303
        refused = await rita.post(f"/team/people/{ann}", data={"csrf": csrf, "name": "Nope"})
        assert refused.status_code == 403
        empty = await rita.post(f"/team/people/{rita_id}", data={"csrf": csrf, "name": "  "})
        assert empty.status_code == 422 and 'id="name-error"' in empty.text
    assert await _name(app, "rita@example.com") == "Rita R"
    assert await _name(app, "ann@example.com") == "Ann"
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        done = await admin.post(f"/team/people/{ann}", data={"csrf": csrf, "name": "Ann B"})
        assert done.status_code == 303
    assert await _name(app, "ann@example.com") == "Ann B"
    renamed = [e for e in await audit_entries(app) if e.action == "person.renamed"]
    assert [(e.actor, e.subject) for e in renamed] == [
        ("rita@example.com", "rita@example.com"),
        ("adam@example.com", "ann@example.com"),
    ]


async def test_another_teams_person_is_a_404(app: FastAPI, other_api: Api) -> None:
    await create_member(app, "globex", "olga@example.com", "Olga")
    olga = await user_id(app, "olga@example.com")
    async with person(app, "adam@example.com", "owner") as (admin, csrf):
        assert (await admin.get(f"/team/people/{olga}")).status_code == 404
        changed = await admin.post(f"/team/people/{olga}", data={"csrf": csrf, "name": "X"})
        assert changed.status_code == 404
        assert (await admin.get("/team/people/abc")).status_code == 404
    assert await _name(app, "olga@example.com") == "Olga"
