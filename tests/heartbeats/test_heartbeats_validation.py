from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from watchpost.context import AppContext
from watchpost.errors import InvalidRequest
from watchpost.heartbeats import service
from watchpost.heartbeats.schemas import (
    GRACE_MAX,
    HEARTBEAT_NULL_RESETS,
    HEARTBEAT_NULLABLE,
    HEARTBEAT_READ_ONLY,
    PERIOD_MAX,
    PERIOD_MIN,
    HeartbeatCreate,
    HeartbeatUpdate,
    default_grace,
)

URL = "/api/v2/heartbeats"


async def _create(api: Api, **fields: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = data(await api.post(URL, {"name": "job", **fields}), 201)[
        "attributes"
    ]
    return attributes


# ------------------------------------------------------------------------ period, grace


async def test_period_bounds(api: Api) -> None:
    _, fields = errors(await api.post(URL, {"name": "job", "period": PERIOD_MIN - 1}))
    assert fields == ["period"]
    assert (await _create(api, period=PERIOD_MIN))["period"] == 30
    assert (await _create(api, period=PERIOD_MAX))["period"] == PERIOD_MAX
    _, fields = errors(await api.post(URL, {"name": "job", "period": PERIOD_MAX + 1}))
    assert fields == ["period"]


async def test_period_bounds_on_patch(api: Api) -> None:
    created = data(await api.post(URL, {"name": "job", "period": 60}), 201)
    path = f"{URL}/{created['id']}"
    _, fields = errors(await api.patch(path, {"period": 29}))
    assert fields == ["period"]
    assert data(await api.get(path))["attributes"]["period"] == 60


@pytest.mark.parametrize("value", ["60", 60.5, True, None])
async def test_period_must_be_an_integer(api: Api, value: object) -> None:
    _, fields = errors(await api.post(URL, {"name": "job", "period": value}))
    assert fields == ["period"]


async def test_grace_defaults_to_a_fifth_of_the_period(api: Api) -> None:
    assert (await _create(api, period=30))["grace"] == 6
    assert (await _create(api, period=3601))["grace"] == 720
    assert default_grace(86_400) == 17_280


async def test_grace_bounds(api: Api) -> None:
    assert (await _create(api, grace=0))["grace"] == 0
    assert (await _create(api, grace=GRACE_MAX))["grace"] == GRACE_MAX
    for bad in (-1, GRACE_MAX + 1):
        _, fields = errors(await api.post(URL, {"name": "job", "grace": bad}))
        assert fields == ["grace"]


# ------------------------------------------------------------------ required, read-only


async def test_name_is_required_and_not_blank(api: Api) -> None:
    messages, fields = errors(await api.post(URL, {}))
    assert fields == ["name"]
    assert messages == ["name is required"]
    _, fields = errors(await api.post(URL, {"name": "   "}))
    assert fields == ["name"]
    _, fields = errors(await api.post(URL, {"name": None}))
    assert fields == ["name"]


@pytest.mark.parametrize("field", sorted(HEARTBEAT_READ_ONLY))
async def test_read_only_fields_are_rejected(api: Api, field: str) -> None:
    messages, fields = errors(await api.post(URL, {"name": "job", field: "x"}))
    assert fields == [field]
    assert messages == [f"{field} is read-only"]
    created = data(await api.post(URL, {"name": "job"}), 201)
    _, fields = errors(await api.patch(f"{URL}/{created['id']}", {field: "x"}))
    assert fields == [field]


async def test_unknown_attribute(api: Api) -> None:
    messages, fields = errors(await api.post(URL, {"name": "job", "frequency": 60}))
    assert fields == ["frequency"]
    assert messages == ["frequency is not a known attribute"]


@pytest.mark.parametrize(
    "field", sorted(set(HeartbeatUpdate.model_fields) - HEARTBEAT_NULLABLE - HEARTBEAT_NULL_RESETS)
)
async def test_null_is_refused_where_there_is_no_null(api: Api, field: str) -> None:
    created = data(await api.post(URL, {"name": "job"}), 201)
    messages, fields = errors(await api.patch(f"{URL}/{created['id']}", {field: None}))
    assert fields == [field]
    assert messages == [f"{field} must not be null"]


async def test_every_problem_is_reported_at_once(api: Api) -> None:
    _, fields = errors(
        await api.post(
            URL,
            {
                "period": 10,
                "grace": -1,
                "status": "up",
                "maintenance_days": ["funday"],
                "heartbeat_group_id": 999,
            },
        )
    )
    assert set(fields) == {
        "name",
        "period",
        "grace",
        "status",
        "maintenance_days",
        "heartbeat_group_id",
    }


# ------------------------------------------------------------------- maintenance window


async def test_maintenance_from_without_to(api: Api) -> None:
    messages, fields = errors(await api.post(URL, {"name": "job", "maintenance_from": "01:00"}))
    assert fields == ["maintenance_to"]
    assert "maintenance_to is required" in messages[0]
    _, fields = errors(await api.post(URL, {"name": "job", "maintenance_to": "01:00:00"}))
    assert fields == ["maintenance_from"]


async def test_maintenance_patch_checks_the_merged_window(api: Api) -> None:
    created = data(
        await api.post(
            URL, {"name": "job", "maintenance_from": "01:00:00", "maintenance_to": "02:00:00"}
        ),
        201,
    )
    path = f"{URL}/{created['id']}"
    _, fields = errors(await api.patch(path, {"maintenance_to": None}))
    assert fields == ["maintenance_to"]
    moved = data(await api.patch(path, {"maintenance_from": "00:30:00"}))["attributes"]
    assert (moved["maintenance_from"], moved["maintenance_to"]) == ("00:30:00", "02:00:00")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("maintenance_timezone", "Mars/Olympus"),
        ("maintenance_timezone", 1),
        ("maintenance_days", ["funday"]),
        ("maintenance_days", "mon"),
        ("maintenance_from", "25:00:00"),
        ("maintenance_from", "1am"),
    ],
)
async def test_bad_maintenance_values(api: Api, field: str, value: object) -> None:
    body = {"name": "job", "maintenance_from": "01:00:00", "maintenance_to": "02:00:00"}
    _, fields = errors(await api.post(URL, {**body, field: value}))
    assert fields == [field]


async def test_team_wait_bounds(api: Api) -> None:
    _, fields = errors(await api.post(URL, {"name": "job", "team_wait": -1}))
    assert fields == ["team_wait"]


# ------------------------------------------------------------------- heartbeat_group_id


async def test_group_must_exist_in_the_team(api: Api, other_api: Api) -> None:
    theirs = data(await other_api.post("/api/v2/heartbeat-groups", {"name": "theirs"}), 201)
    for value in (int(theirs["id"]), 999):
        messages, fields = errors(await api.post(URL, {"name": "job", "heartbeat_group_id": value}))
        assert fields == ["heartbeat_group_id"]
        assert "not a heartbeat group of this team" in messages[0]
    created = data(await api.post(URL, {"name": "job"}), 201)
    _, fields = errors(
        await api.patch(f"{URL}/{created['id']}", {"heartbeat_group_id": int(theirs["id"])})
    )
    assert fields == ["heartbeat_group_id"]
    assert data(await api.get(f"{URL}/{created['id']}"))["attributes"]["heartbeat_group_id"] is None


@pytest.mark.parametrize("value", ["1", 0, -5, 2**64, True])
async def test_group_id_must_be_a_positive_integer(api: Api, value: object) -> None:
    _, fields = errors(await api.post(URL, {"name": "job", "heartbeat_group_id": value}))
    assert fields == ["heartbeat_group_id"]


async def test_group_can_be_set_and_cleared(api: Api) -> None:
    group = data(await api.post("/api/v2/heartbeat-groups", {"name": "g"}), 201)
    created = data(await api.post(URL, {"name": "job"}), 201)
    path = f"{URL}/{created['id']}"
    grouped = data(await api.patch(path, {"heartbeat_group_id": int(group["id"])}))
    assert grouped["attributes"]["heartbeat_group_id"] == int(group["id"])
    ungrouped = data(await api.patch(path, {"heartbeat_group_id": None}))
    assert ungrouped["attributes"]["heartbeat_group_id"] is None


async def test_body_must_be_json_object(api: Api) -> None:
    response = await api.post(URL, [1, 2])
    assert response.status_code == 400


async def test_group_deleted_after_the_check_is_a_422(api: Api, app: FastAPI) -> None:
    ctx: AppContext = app.state.ctx
    request = HeartbeatCreate.model_validate({"name": "job", "heartbeat_group_id": 12345})
    with pytest.raises(InvalidRequest) as caught:
        async with ctx.db.write_sessions() as session, session.begin():
            await service.create_heartbeat(
                session, team_id=api.team_id, data=request, now=ctx.clock.now()
            )
    assert [field for field, _ in caught.value.problems] == ["heartbeat_group_id"]
