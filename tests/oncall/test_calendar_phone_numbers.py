"""The on-call responses' users carry the person's phone numbers (`phone_numbers`, E.164
strings as the console keeps them; `[]` for a person with none), in the one-calendar and
the list responses alike."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import update

from tests.factories.api import Api
from tests.factories.delivery import create_member
from watchpost.teams.models import User

ON_CALLS = "/api/v2/on-calls"


async def test_on_call_users_carry_their_phone_numbers(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann Lee")
    await create_member(app, "acme", "bob@example.com", "Bob")
    async with app.state.ctx.db.write_sessions() as db, db.begin():
        await db.execute(
            update(User)
            .where(User.email == "ann@example.com")
            .values(phone_numbers=["+15550001111", "+447700900123"])
        )
    body = {
        "starts_at": "2026-01-01T00:00:00Z",
        "ends_at": "2026-01-02T00:00:00Z",
        "users": ["ann@example.com", "bob@example.com"],
    }
    assert (await api.post(f"{ON_CALLS}/default/events", body)).status_code == 201
    one = (await api.get(f"{ON_CALLS}/default")).json()["included"]
    listed = (await api.get(ON_CALLS)).json()["included"]
    for included in (one, listed):
        numbers = {u["attributes"]["email"]: u["attributes"]["phone_numbers"] for u in included}
        assert numbers == {
            "ann@example.com": ["+15550001111", "+447700900123"],
            "bob@example.com": [],
        }
