"""The betterstack-uptime Python client (2.0.1), unchanged but for its base URL, against a
real uvicorn server: calendars, their people on call, rotation, events, and the escalation
policy that names a calendar."""

from __future__ import annotations

import asyncio

from betterstack.uptime import UptimeAPI
from betterstack.uptime.exceptions import NotFoundError
from betterstack.uptime.objects.escalation_policy import EscalationPolicy
from betterstack.uptime.objects.on_call import OnCallCalendar, OnCallEvent
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.delivery import create_member
from tests.factories.processes import uvicorn_thread
from watchpost.app import create_app
from watchpost.clock import FrozenClock
from watchpost.settings import Settings

ANN, BOB = "ann@example.com", "bob@example.com"


def drive(base: str, token: str) -> None:
    client = UptimeAPI(token, retries=0)
    client.base_url = f"{base}/api/v2/"
    OnCallCalendar.new(client, name="Database", team_name="acme")
    calendars = list(OnCallCalendar.get_all_instances(client))
    assert [c.name for c in calendars] == ["Primary", "Database"]
    default = calendars[0]
    assert default.default_calendar is True and default.team_name == "acme"
    assert default.on_call_users == []

    made = default.create_rotation(
        [ANN, BOB], 1, "day", "2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z"
    )
    assert made["users"] == [ANN, BOB] and made["rotation_period"] == "day"
    events = default.fetch_events()
    assert [e.users for e in events] == [[ANN], [BOB], [ANN], [BOB]]
    assert [e.starts_at for e in events][:2] == ["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"]
    assert all(e.override is False and e._calendar_id == default.id for e in events)
    (default,) = [c for c in OnCallCalendar.get_all_instances(client) if c.default_calendar]
    assert [u["meta"]["email"] for u in default.on_call_users] == [ANN]

    first = OnCallEvent(id=events[0].id, _api=client)
    first._calendar_id = default.id
    first.fetch_data()
    assert first.users == [ANN] and first.ends_at == "2026-01-02T00:00:00Z"
    first.users = [BOB]
    first.save()
    assert first.users == [BOB]
    (default,) = [c for c in OnCallCalendar.get_all_instances(client) if c.default_calendar]
    assert [u["meta"]["email"] for u in default.on_call_users] == [BOB]
    events[-1].delete()
    assert len(default.fetch_events()) == 3
    try:
        events[-1].fetch_data()
        raise AssertionError("a deleted event was found")
    except NotFoundError:
        pass

    member = {"type": "current_on_call", "id": int(default.id)}
    steps = [{"type": "escalation", "wait_before": 0, "step_members": [member]}]
    policy = EscalationPolicy.new(client, name="Rota", team_name="acme", steps=steps)
    assert policy.steps == steps and policy.team_name == "acme"
    assert [p.id for p in EscalationPolicy.filter(client, team_name="acme")] == [policy.id]
    policy.name = "Nights"
    policy.save()
    assert policy.name == "Nights"
    policy.delete()
    assert list(EscalationPolicy.get_all_instances(client)) == []


async def test_the_python_client_drives_on_call(app: FastAPI, api: Api, settings: Settings) -> None:
    await create_member(app, "acme", ANN, "Ann")
    await create_member(app, "acme", BOB, "Bob")
    served = create_app(settings, clock=FrozenClock())
    with uvicorn_thread(served) as base:
        await asyncio.to_thread(drive, base, api.token)
