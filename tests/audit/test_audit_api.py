"""GET /api/v2/audit-log, and the entries the API's own writes leave there: one per
successful POST, PATCH, PUT or DELETE of a token (http/audited.py), none for a read or a
refused write."""

from __future__ import annotations

from datetime import timedelta

from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.incidents import create_engine_incident
from watchpost.audit.service import Actor, record
from watchpost.clock import FrozenClock

LOG = "/api/v2/audit-log"


async def _record(app: FastAPI, team_id: int, count: int, clock: FrozenClock) -> None:
    async with app.state.ctx.db.write_sessions() as db, db.begin():
        for n in range(count):
            await record(
                db,
                team_id=team_id,
                actor=Actor("person", "ann@example.com", 3, "10.0.0.1"),
                action="monitor.paused",
                now=clock.now() + timedelta(seconds=n),
                subject_type="monitor",
                subject_id=100 + n,
                subject=f"monitor {n}",
            )


async def test_the_log_is_the_teams_newest_first_and_paged(
    app: FastAPI, api: Api, other_api: Api, clock: FrozenClock
) -> None:
    await _record(app, api.team_id, 5, clock)
    await _record(app, other_api.team_id, 3, clock)
    first = await api.get(f"{LOG}?per_page=2")
    assert first.status_code == 200
    body = first.json()
    assert [item["attributes"]["subject"] for item in body["data"]] == ["monitor 4", "monitor 3"]
    item = body["data"][0]
    assert item["type"] == "audit_event" and item["id"].isdigit()
    assert item["attributes"] == {
        "at": (clock.now() + timedelta(seconds=4))
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z"),
        "actor_type": "person",
        "actor_id": 3,
        "actor": "ann@example.com",
        "action": "monitor.paused",
        "subject_type": "monitor",
        "subject_id": 104,
        "subject": "monitor 4",
        "details": {},
        "ip_address": "10.0.0.1",
    }
    links = body["pagination"]
    assert links["first"] == "http://testserver/api/v2/audit-log?page=1&per_page=2"
    assert links["last"] == "http://testserver/api/v2/audit-log?page=3&per_page=2"
    assert links["prev"] is None
    assert links["next"] == "http://testserver/api/v2/audit-log?page=2&per_page=2"
    last = (await api.get(links["last"].removeprefix("http://testserver"))).json()
    assert [i["attributes"]["subject"] for i in last["data"]] == ["monitor 0"]
    assert last["pagination"]["next"] is None
    theirs = (await other_api.get(LOG)).json()["data"]
    assert [i["attributes"]["subject"] for i in theirs] == ["monitor 2", "monitor 1", "monitor 0"]


async def test_the_log_needs_a_token_and_valid_paging(api: Api) -> None:
    assert (await api.client.get(LOG)).status_code == 401
    assert (await api.get(f"{LOG}?page=0")).status_code == 422
    empty = (await api.get(LOG)).json()
    assert empty["data"] == [] and empty["pagination"]["last"].endswith("page=1&per_page=50")


async def test_the_apis_writes_are_recorded_with_the_token_as_actor(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    created = data(
        await api.post(
            "/api/v2/monitors", {"url": "https://example.com", "pronounceable_name": "Shop"}
        ),
        201,
    )
    monitor = created["id"]
    assert (await api.get(f"/api/v2/monitors/{monitor}")).status_code == 200  # a read: nothing
    assert (
        await api.patch(f"/api/v2/monitors/{monitor}", {"check_frequency": 60})
    ).status_code == 200
    assert (
        await api.patch(f"/api/v2/monitors/{monitor}", {"check_frequency": -1})
    ).status_code == 422
    incident = await create_engine_incident(app, api)
    assert (await api.post(f"/api/v2/incidents/{incident}/acknowledge", {})).status_code == 200
    assert (await api.delete(f"/api/v2/monitors/{monitor}")).status_code == 204
    assert (await other_api.delete(f"/api/v2/monitors/{monitor}")).status_code == 404

    log = [item["attributes"] for item in (await api.get(LOG)).json()["data"]]
    assert [(e["action"], e["subject_id"]) for e in log] == [
        ("monitor.deleted", int(monitor)),
        ("incident.acknowledged", int(incident)),
        ("monitor.updated", int(monitor)),
        ("monitor.created", int(monitor)),
    ]
    assert {e["actor_type"] for e in log} == {"token"}
    assert {e["actor"] for e in log} == {api.token[:12] + "…"}
    assert log[-1]["subject"] == "Shop" and log[-1]["subject_type"] == "monitor"
    assert log[0]["details"] == {"request": f"DELETE /api/v2/monitors/{monitor}"}
    assert api.token not in str(log)
    assert (await other_api.get(LOG)).json()["data"] == []
