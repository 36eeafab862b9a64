from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from tests.factories.api import Api, data, errors
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.context import AppContext
from watchpost.heartbeats.models import Heartbeat
from watchpost.heartbeats.schemas import DEFAULT_PERIOD, HEARTBEAT_DEFAULTS, default_grace
from watchpost.heartbeats.service import TOKEN_BYTES

URL = "/api/v2/heartbeats"
TOKEN_IN_URL = re.compile(r"^http://testserver/api/v1/heartbeat/([A-Za-z0-9_-]+)$")


async def _row(app: FastAPI, heartbeat_id: str) -> Heartbeat:
    ctx: AppContext = app.state.ctx
    async with ctx.db.read_sessions() as session:
        row = await session.scalar(select(Heartbeat).where(Heartbeat.id == int(heartbeat_id)))
    assert row is not None
    return row


async def _record_ping(app: FastAPI, heartbeat_id: str, at: datetime) -> None:
    """What the engine will do on a ping (not built yet): last ping, up, next deadline."""
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        row = await session.get(Heartbeat, int(heartbeat_id))
        assert row is not None
        row.last_ping_at = at
        row.status = "up"
        row.next_due_at = at + timedelta(seconds=row.period + row.grace)


async def test_minimal_create_has_full_shape_and_defaults(api: Api, clock: FrozenClock) -> None:
    created = data(await api.post(URL, {"name": "nightly backup"}), 201)
    now = isoformat_ms(clock.now())
    assert created["type"] == "heartbeat"
    assert isinstance(created["id"], str)
    attributes = created["attributes"]
    url = attributes.pop("url")
    assert TOKEN_IN_URL.match(url)
    assert attributes == {
        "name": "nightly backup",
        "period": DEFAULT_PERIOD,
        "grace": default_grace(DEFAULT_PERIOD),
        "heartbeat_group_id": None,
        "sort_index": 0,
        "paused": False,
        "paused_at": None,
        "status": "pending",
        "last_ping_at": None,
        "maintenance_from": None,
        "maintenance_to": None,
        "maintenance_timezone": "UTC",
        "maintenance_days": [],
        "call": False,
        "sms": False,
        "email": True,
        "push": False,
        "team_wait": None,
        "policy_id": None,
        "critical_alert": False,
        "server_timezone": None,
        "team_name": "acme",
        "created_at": now,
        "updated_at": now,
    }
    assert set(HEARTBEAT_DEFAULTS) <= set(attributes)


async def test_create_with_every_field(api: Api) -> None:
    group = data(await api.post("/api/v2/heartbeat-groups", {"name": "jobs"}), 201)
    body = {
        "name": "billing export",
        "period": 3600,
        "grace": 300,
        "heartbeat_group_id": int(group["id"]),
        "sort_index": 4,
        "paused": False,
        "maintenance_from": "01:00",
        "maintenance_to": "02:30:00",
        "maintenance_timezone": "Europe/Prague",
        "maintenance_days": ["sun", "mon"],
        "call": True,
        "sms": True,
        "email": False,
        "push": True,
        "team_wait": 120,
    }
    attributes = data(await api.post(URL, body), 201)["attributes"]
    expected = {**body, "maintenance_from": "01:00:00", "maintenance_days": ["mon", "sun"]}
    assert {key: attributes[key] for key in body} == expected


async def test_get_returns_what_create_returned(api: Api) -> None:
    created = data(await api.post(URL, {"name": "a"}), 201)
    assert data(await api.get(f"{URL}/{created['id']}")) == created


async def test_token_is_random_urlsafe_and_unique(api: Api, app: FastAPI) -> None:
    tokens = []
    for index in range(20):
        url = data(await api.post(URL, {"name": f"job {index}"}), 201)["attributes"]["url"]
        match = TOKEN_IN_URL.match(url)
        assert match is not None, url
        tokens.append(match.group(1))
    assert len(set(tokens)) == len(tokens)
    # base64url of TOKEN_BYTES random bytes: at least 16 bytes of entropy
    assert TOKEN_BYTES >= 16
    assert all(len(token) >= 4 * TOKEN_BYTES // 3 for token in tokens)
    # kept as is, so the ping endpoint finds the heartbeat by the URL's last segment
    async with app.state.ctx.db.read_sessions() as session:
        found = await session.scalar(select(Heartbeat.name).where(Heartbeat.token == tokens[3]))
    assert found == "job 3"


async def test_token_column_is_unique(api: Api, app: FastAPI) -> None:
    assert Heartbeat.__table__.c.token.unique
    first = data(await api.post(URL, {"name": "a"}), 201)
    data(await api.post(URL, {"name": "b"}), 201)
    taken = (await _row(app, first["id"])).token
    with pytest.raises(IntegrityError):
        async with app.state.ctx.db.write_sessions() as session, session.begin():
            row = await session.get(Heartbeat, 2)
            assert row is not None
            row.token = taken


async def test_patch_changes_sent_fields_only(api: Api, clock: FrozenClock) -> None:
    created = data(await api.post(URL, {"name": "a", "period": 600, "sort_index": 2}), 201)
    clock.advance(60)
    updated = data(await api.patch(f"{URL}/{created['id']}", {"name": "b", "grace": 10}))
    attributes = updated["attributes"]
    assert attributes["name"] == "b"
    assert attributes["grace"] == 10
    assert attributes["period"] == 600
    assert attributes["sort_index"] == 2
    assert attributes["url"] == created["attributes"]["url"]
    assert attributes["created_at"] == created["attributes"]["created_at"]
    assert attributes["updated_at"] == isoformat_ms(clock.now())


async def test_patch_period_keeps_grace(api: Api) -> None:
    created = data(await api.post(URL, {"name": "a", "period": 600}), 201)
    assert created["attributes"]["grace"] == 120
    updated = data(await api.patch(f"{URL}/{created['id']}", {"period": 6000}))
    assert updated["attributes"]["grace"] == 120


async def test_maintenance_fields_can_be_cleared(api: Api) -> None:
    created = data(
        await api.post(
            URL,
            {
                "name": "a",
                "maintenance_from": "01:00:00",
                "maintenance_to": "02:00:00",
                "maintenance_timezone": "Asia/Tokyo",
                "maintenance_days": ["mon"],
                "team_wait": 60,
            },
        ),
        201,
    )
    cleared = data(
        await api.patch(
            f"{URL}/{created['id']}",
            {
                "maintenance_from": None,
                "maintenance_to": None,
                "maintenance_timezone": None,
                "maintenance_days": None,
                "team_wait": None,
            },
        )
    )["attributes"]
    assert cleared["maintenance_from"] is None
    assert cleared["maintenance_to"] is None
    assert cleared["maintenance_timezone"] == "UTC"
    assert cleared["maintenance_days"] == []
    assert cleared["team_wait"] is None


async def test_delete(api: Api) -> None:
    created = data(await api.post(URL, {"name": "a"}), 201)
    response = await api.delete(f"{URL}/{created['id']}")
    assert response.status_code == 204
    assert response.content == b""
    assert (await api.get(f"{URL}/{created['id']}")).status_code == 404
    assert (await api.delete(f"{URL}/{created['id']}")).status_code == 404


# ---------------------------------------------------------------------------- pausing


async def test_create_paused(api: Api, clock: FrozenClock) -> None:
    attributes = data(await api.post(URL, {"name": "a", "paused": True}), 201)["attributes"]
    assert attributes["paused"] is True
    assert attributes["status"] == "paused"
    assert attributes["paused_at"] == isoformat_ms(clock.now())


async def test_pause_and_unpause_never_pinged(api: Api, clock: FrozenClock) -> None:
    created = data(await api.post(URL, {"name": "a"}), 201)
    path = f"{URL}/{created['id']}"
    clock.advance(30)
    paused = data(await api.patch(path, {"paused": True}))["attributes"]
    assert (paused["status"], paused["paused"]) == ("paused", True)
    assert paused["paused_at"] == isoformat_ms(clock.now())
    clock.advance(30)
    again = data(await api.patch(path, {"paused": True}))["attributes"]
    assert again["paused_at"] == paused["paused_at"]
    resumed = data(await api.patch(path, {"paused": False}))["attributes"]
    assert (resumed["status"], resumed["paused"], resumed["paused_at"]) == (
        "pending",
        False,
        None,
    )


async def test_unpause_after_a_ping_restarts_the_deadline(
    api: Api, app: FastAPI, clock: FrozenClock
) -> None:
    created = data(await api.post(URL, {"name": "a", "period": 600, "grace": 60}), 201)
    path = f"{URL}/{created['id']}"
    await _record_ping(app, created["id"], clock.now())
    paused = data(await api.patch(path, {"paused": True}))["attributes"]
    assert paused["status"] == "paused"
    row = await _row(app, created["id"])
    assert row.next_due_at is None
    assert row.last_ping_at == clock.now()
    clock.advance(timedelta(days=7))
    resumed = data(await api.patch(path, {"paused": False}))["attributes"]
    assert resumed["status"] == "up"
    row = await _row(app, created["id"])
    assert row.next_due_at == clock.now() + timedelta(seconds=660)


async def test_pending_heartbeat_has_no_deadline(api: Api, app: FastAPI) -> None:
    created = data(await api.post(URL, {"name": "a"}), 201)
    row = await _row(app, created["id"])
    assert (row.last_ping_at, row.next_due_at) == (None, None)


async def test_new_period_moves_the_deadline(api: Api, app: FastAPI, clock: FrozenClock) -> None:
    created = data(await api.post(URL, {"name": "a", "period": 600, "grace": 60}), 201)
    pinged = clock.now()
    await _record_ping(app, created["id"], pinged)
    data(await api.patch(f"{URL}/{created['id']}", {"period": 1200, "grace": 0}))
    row = await _row(app, created["id"])
    assert row.next_due_at == pinged + timedelta(seconds=1200)


# ------------------------------------------------------------------- listing, isolation


async def test_list_is_paginated_in_creation_order(api: Api) -> None:
    ids = [data(await api.post(URL, {"name": f"hb {i}"}), 201)["id"] for i in range(5)]
    response = await api.get(URL, params={"per_page": 2, "page": 2})
    assert response.status_code == 200
    body = response.json()
    assert [item["id"] for item in body["data"]] == ids[2:4]
    assert body["pagination"] == {
        "first": "http://testserver/api/v2/heartbeats?page=1&per_page=2",
        "last": "http://testserver/api/v2/heartbeats?page=3&per_page=2",
        "prev": "http://testserver/api/v2/heartbeats?page=1&per_page=2",
        "next": "http://testserver/api/v2/heartbeats?page=3&per_page=2",
    }
    everything = (await api.get(URL)).json()["data"]
    assert [item["id"] for item in everything] == ids
    assert all(item["type"] == "heartbeat" for item in everything)


async def test_list_rejects_bad_paging(api: Api) -> None:
    _, fields = errors(await api.get(URL, params={"page": "0"}))
    assert fields == ["page"]


async def test_other_team_sees_nothing_and_changes_nothing(api: Api, other_api: Api) -> None:
    created = data(await api.post(URL, {"name": "mine"}), 201)
    path = f"{URL}/{created['id']}"
    assert (await other_api.get(URL)).json()["data"] == []
    for response in (
        await other_api.get(path),
        await other_api.patch(path, {"name": "theirs", "paused": True}),
        await other_api.delete(path),
    ):
        assert response.status_code == 404, response.text
        assert response.json() == {
            "errors": f"Resource type heartbeat with id = {created['id']} was not found"
        }
    assert data(await api.get(path)) == created


async def test_unknown_ids_are_404(api: Api) -> None:
    for path in (f"{URL}/999", f"{URL}/abc", f"{URL}/-1"):
        assert (await api.get(path)).status_code == 404
        assert (await api.patch(path, {"name": "x"})).status_code == 404
        assert (await api.delete(path)).status_code == 404


async def test_needs_a_token(api: Api) -> None:
    response = await api.client.get(URL)
    assert response.status_code == 401


async def test_url_follows_the_request_when_no_public_url(api: Api) -> None:
    created = data(await api.post(URL, {"name": "a"}), 201)
    token = created["attributes"]["url"].rsplit("/", 1)[1]
    response = await api.client.get(
        f"{URL}/{created['id']}", headers={**api.headers, "Host": "monitor.internal:9000"}
    )
    assert data(response)["attributes"]["url"] == (
        f"http://monitor.internal:9000/api/v1/heartbeat/{token}"
    )


async def test_a_team_name_filter_lists_the_tokens_team_or_nothing(api: Api) -> None:
    heartbeat = data(await api.post(URL, {"name": "Nightly"}), 201)

    async def ids(team_name: str) -> list[str]:
        response = await api.get(URL, params={"team_name": team_name})
        assert response.status_code == 200
        return [item["id"] for item in response.json()["data"]]

    assert await ids("acme") == await ids("") == [heartbeat["id"]]
    assert await ids("another team") == []
