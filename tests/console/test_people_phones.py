"""People's phone numbers in the console: a person keeps their own on /account, an admin
anyone's in the team on /team/people/{id}; a member cannot change another's, another team's
person is a 404; a wrong number is shown beside the field; the member page and the people
list show the numbers; the audit log says whose changed, never the numbers."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import audit_entries, person, user_id
from tests.factories.delivery import create_member
from watchpost.teams.models import User


async def _numbers(app: FastAPI, email: str) -> list[str]:
    async with app.state.ctx.db.read_sessions() as db:
        found = await db.scalar(select(User.phone_numbers).where(User.email == email))
        return list(found or [])


async def test_a_person_keeps_their_own_numbers_on_the_account_page(app: FastAPI) -> None:
    async with person(app, "vera@example.com", "viewer") as (vera, csrf):
        typed = "+44 20 7946 0000\n+1 (555) 000-1111"
        done = await vera.post(
            "/account/phone-numbers", data={"csrf": csrf, "phone_numbers": typed}
        )
        assert done.status_code == 303
        page = await vera.get("/account")
        assert "+442079460000\n+15550001111</textarea>" in page.text
        wrong = await vera.post(
            "/account/phone-numbers", data={"csrf": csrf, "phone_numbers": "+15550001111\n555-01"}
        )
        assert wrong.status_code == 422
        assert 'id="phone_numbers-error"' in wrong.text and "“555-01” is not a phone" in wrong.text
        assert "+15550001111\n555-01</textarea>" in wrong.text  # as typed, to be corrected
        forged = await vera.post("/account/phone-numbers", data={"csrf": "x", "phone_numbers": ""})
        assert forged.status_code == 403
        assert await _numbers(app, "vera@example.com") == ["+442079460000", "+15550001111"]
        cleared = await vera.post(
            "/account/phone-numbers", data={"csrf": csrf, "phone_numbers": ""}
        )
        assert cleared.status_code == 303
    assert await _numbers(app, "vera@example.com") == []
    changed = [e for e in await audit_entries(app) if e.action == "person.phone_numbers_changed"]
    assert [(e.subject, e.details) for e in changed] == [
        ("vera@example.com", {"numbers_before": 0, "numbers": 2}),
        ("vera@example.com", {"numbers_before": 2, "numbers": 0}),
    ]
    assert "+44" not in str([e.details for e in changed])


async def test_an_admin_changes_anyones_a_member_only_their_own(app: FastAPI) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann")
    ann = await user_id(app, "ann@example.com")
    async with person(app, "rita@example.com", "responder") as (rita, csrf):
        rita_id = await user_id(app, "rita@example.com")
        own = await rita.get(f"/team/people/{rita_id}")
        assert "Save phone numbers" in own.text
        done = await rita.post(
            f"/team/people/{rita_id}/phone-numbers",
            data={"csrf": csrf, "phone_numbers": "+15550002222"},
        )
        assert done.status_code == 303
        other = await rita.get(f"/team/people/{ann}")
        assert "Save phone numbers" not in other.text
        refused = await rita.post(
            f"/team/people/{ann}/phone-numbers",
            data={"csrf": csrf, "phone_numbers": "+15550003333"},
        )
        assert refused.status_code == 403
    assert await _numbers(app, "ann@example.com") == []
    async with person(app, "adam@example.com", "admin") as (admin, csrf):
        wrong = await admin.post(
            f"/team/people/{ann}/phone-numbers",
            data={"csrf": csrf, "phone_numbers": "\n".join(f"+1555000444{i}" for i in range(6))},
        )
        assert wrong.status_code == 422
        assert 'id="phone_numbers-error"' in wrong.text and "at most 5" in wrong.text
        done = await admin.post(
            f"/team/people/{ann}/phone-numbers",
            data={"csrf": csrf, "phone_numbers": "+44 7700 900123"},
        )
        assert done.status_code == 303
        page = await admin.get(f"/team/people/{ann}")
        assert '<a href="tel:+447700900123">+447700900123</a>' in page.text
        listed = await admin.get("/team")
        assert '<a href="tel:+447700900123">' in listed.text
        assert '<a href="tel:+15550002222">' in listed.text  # Rita's
    assert await _numbers(app, "ann@example.com") == ["+447700900123"]
    assert await _numbers(app, "rita@example.com") == ["+15550002222"]
    changed = [e for e in await audit_entries(app) if e.action == "person.phone_numbers_changed"]
    assert [(e.actor, e.subject) for e in changed] == [
        ("rita@example.com", "rita@example.com"),
        ("adam@example.com", "ann@example.com"),
    ]


async def test_another_teams_person_is_a_404_and_their_numbers_unseen(app: FastAPI) -> None:
    await create_member(app, "globex", "olga@example.com", "Olga")
    olga = await user_id(app, "olga@example.com")
    async with person(app, "olga2@example.com", "viewer", team="globex") as (olga2, csrf):
        await olga2.post(
            "/account/phone-numbers", data={"csrf": csrf, "phone_numbers": "+15550009999"}
        )
    async with person(app, "adam@example.com", "owner") as (admin, csrf):
        assert (await admin.get(f"/team/people/{olga}")).status_code == 404
        changed = await admin.post(
            f"/team/people/{olga}/phone-numbers",
            data={"csrf": csrf, "phone_numbers": "+15550001111"},
        )
        assert changed.status_code == 404
        assert "+15550009999" not in (await admin.get("/team")).text
    assert await _numbers(app, "olga@example.com") == []
