"""GET /api/v2/incidents filters: each alone, combined, bounds of from/to, bad values."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlencode

import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from tests.factories.hostile_times import HOSTILE_TIMES
from tests.factories.incidents import (
    URL,
    create_engine_incident,
    create_heartbeat_id,
    create_monitor_id,
    ids,
)
from watchpost.clock import FrozenClock


@dataclass
class World:
    ids: dict[str, str]
    m1: int
    m2: int
    h1: int

    def names(self, got: list[str]) -> list[str]:
        by_id = {value: key for key, value in self.ids.items()}
        return [by_id[item] for item in got]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.fixture
async def world(app: FastAPI, api: Api, clock: FrozenClock) -> World:
    """Five incidents:

    a  monitor m1  2026-01-01 10:00:00      acknowledged, resolved
    b  monitor m1  2026-01-02 00:00:00      acknowledged, open
    c  monitor m2  2026-01-03 12:00:00.500  resolved without acknowledgement
    d  heartbeat   2026-01-03 23:59:59.999  open
    e  manual      2026-01-04 00:00:00      open
    """
    m1, m2, h1 = (
        await create_monitor_id(api),
        await create_monitor_id(api),
        await create_heartbeat_id(api),
    )
    made: dict[str, str] = {}

    clock.set(at("2026-01-01T10:00:00"))
    made["a"] = await create_engine_incident(app, api, monitor_id=m1)
    clock.set(at("2026-01-01T10:05:00"))
    data(await api.post(f"{URL}/{made['a']}/acknowledge"))
    clock.set(at("2026-01-01T11:00:00"))
    data(await api.post(f"{URL}/{made['a']}/resolve"))

    clock.set(at("2026-01-02T00:00:00"))
    made["b"] = await create_engine_incident(app, api, monitor_id=m1)
    data(await api.post(f"{URL}/{made['b']}/acknowledge"))

    clock.set(at("2026-01-03T12:00:00.500"))
    made["c"] = await create_engine_incident(app, api, monitor_id=m2)
    data(await api.post(f"{URL}/{made['c']}/resolve"))

    clock.set(at("2026-01-03T23:59:59.999"))
    made["d"] = await create_engine_incident(app, api, heartbeat_id=h1)

    clock.set(at("2026-01-04T00:00:00"))
    made["e"] = data(await api.post(URL, {"name": "manual", "summary": "by hand"}), 201)["id"]
    clock.set(at("2026-01-05T00:00:00"))
    return World(made, m1, m2, h1)


async def listed(api: Api, world: World, **params: str | int) -> str:
    return "".join(world.names(await ids(api, urlencode(params))))


async def test_no_filter_lists_everything(api: Api, world: World) -> None:
    assert await listed(api, world) == "abcde"


async def test_subject_filters(api: Api, world: World) -> None:
    assert await listed(api, world, monitor_id=world.m1) == "ab"
    assert await listed(api, world, monitor_id=world.m2) == "c"
    assert await listed(api, world, heartbeat_id=world.h1) == "d"
    assert await listed(api, world, monitor_id=987654) == ""


async def test_state_filters(api: Api, world: World) -> None:
    assert await listed(api, world, resolved="true") == "ac"
    assert await listed(api, world, resolved="false") == "bde"
    assert await listed(api, world, acknowledged="true") == "ab"
    assert await listed(api, world, acknowledged="false") == "cde"
    assert await listed(api, world, resolved="TRUE") == "ac"
    assert await listed(api, world, acknowledged="False") == "cde"


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        # dates: whole UTC days, both ends inclusive
        ({"from": "2026-01-02"}, "bcde"),
        ({"from": "2026-01-03"}, "cde"),
        ({"to": "2026-01-02"}, "ab"),
        ({"to": "2026-01-03"}, "abcd"),
        ({"from": "2026-01-03", "to": "2026-01-03"}, "cd"),
        ({"from": "2026-01-06"}, ""),
        # datetimes: inclusive to the millisecond
        ({"from": "2026-01-03T12:00:00.500Z"}, "cde"),
        ({"from": "2026-01-03T12:00:00.501Z"}, "de"),
        ({"to": "2026-01-03T12:00:00.500Z"}, "abc"),
        ({"to": "2026-01-03T12:00:00.499Z"}, "ab"),
        ({"to": "2026-01-04T00:00:00Z"}, "abcde"),
        ({"from": "2026-01-02T00:00:00Z", "to": "2026-01-02T00:00:00Z"}, "b"),
        # offsets are honoured; no offset means UTC
        ({"from": "2026-01-03T13:00:00.500+01:00"}, "cde"),
        ({"to": "2026-01-01T11:00:00+01:00"}, "a"),
        ({"from": "2026-01-03T12:00:01"}, "de"),
        # a date and a datetime together
        ({"from": "2026-01-01T10:00:00.001Z", "to": "2026-01-03"}, "bcd"),
    ],
)
async def test_started_at_range(
    api: Api, world: World, params: dict[str, str], expected: str
) -> None:
    assert await listed(api, world, **params) == expected


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"monitor_id": "M1", "resolved": "false"}, "b"),
        ({"monitor_id": "M1", "acknowledged": "true", "resolved": "true"}, "a"),
        ({"resolved": "false", "acknowledged": "false", "from": "2026-01-03"}, "de"),
        ({"heartbeat_id": "H1", "resolved": "true"}, ""),
        ({"from": "2026-01-02", "to": "2026-01-03", "acknowledged": "false"}, "cd"),
        ({"monitor_id": "M1", "heartbeat_id": "H1"}, ""),
        ({"monitor_id": "M2", "to": "2026-01-03T12:00:00Z"}, ""),
        ({"monitor_id": "M2", "to": "2026-01-03"}, "c"),
    ],
)
async def test_filters_combine(
    api: Api, world: World, params: dict[str, str], expected: str
) -> None:
    names = {"M1": world.m1, "M2": world.m2, "H1": world.h1}
    resolved = {key: names.get(value, value) for key, value in params.items()}
    assert await listed(api, world, **resolved) == expected


async def test_empty_values_are_ignored(api: Api, world: World) -> None:
    query = "monitor_id=&heartbeat_id=&resolved=&acknowledged=&from=&to="
    assert world.names(await ids(api, query)) == list("abcde")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("monitor_id", "abc"),
        ("monitor_id", "-1"),
        ("heartbeat_id", "1.0"),
        ("resolved", "yes"),
        ("resolved", "1"),
        ("acknowledged", "maybe"),
        ("from", "2026-13-01"),
        ("from", "yesterday"),
        ("from", "2026-01-01T25:00:00Z"),
        ("to", "01/02/2026"),
        ("to", "9999-12-31"),
    ],
)
async def test_bad_value_is_422_naming_the_parameter(
    api: Api, world: World, name: str, value: str
) -> None:
    messages, fields = errors(await api.get(f"{URL}?{urlencode({name: value})}"))
    assert fields == [name]
    assert messages[0].startswith(f"{name} must be")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        *[(name, value) for name in ("from", "to") for value in HOSTILE_TIMES],
        ("to", "9999-12-31T23:59:59.9999Z"),  # its whole millisecond ends past the year 9999
        ("to", "9999-12-31 UTC"),
    ],
)
async def test_a_time_that_cannot_be_read_or_held_is_422_naming_it(
    api: Api, name: str, value: str
) -> None:
    messages, fields = errors(await api.get(f"{URL}?{urlencode({name: value})}"))
    assert fields == [name]
    assert messages == [f"{name} must be an ISO 8601 date (2026-01-31) or datetime"]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"from": "0001-01-01", "to": "9999-12-30"}, "abcde"),
        ({"from": "1900-01-01T00:00:00z"}, "abcde"),
        ({"to": "2026-01-03T12:00:00.5z"}, "abc"),
        ({"from": "2026-01-03 UTC"}, "cde"),
        ({"to": "2026-01-03 12:00:00.500 utc"}, "abc"),
        ({"from": "9999-12-31T23:59:59.9999Z"}, ""),
    ],
)
async def test_far_bounds_lowercase_z_and_utc_are_read(
    api: Api, world: World, params: dict[str, str], expected: str
) -> None:
    assert await listed(api, world, **params) == expected


async def test_every_bad_parameter_is_reported_at_once(api: Api) -> None:
    query = "monitor_id=x&heartbeat_id=y&resolved=z&acknowledged=w&from=v&to=u"
    messages, fields = errors(await api.get(f"{URL}?{query}"))
    assert fields == ["monitor_id", "heartbeat_id", "resolved", "acknowledged", "from", "to"]
    assert len(messages) == 6


async def test_to_before_from_is_422(api: Api) -> None:
    for query in ("from=2026-01-03&to=2026-01-02", "from=2026-01-03T00:00:00Z&to=2026-01-02"):
        messages, fields = errors(await api.get(f"{URL}?{query}"))
        assert (fields, messages) == (["to"], ["to must not be before from"])


async def test_filters_never_reach_another_team(api: Api, other_api: Api, world: World) -> None:
    assert await ids(other_api) == []
    assert await ids(other_api, f"monitor_id={world.m1}&resolved=true") == []
    assert await listed(api, world, monitor_id=world.m1) == "ab"


async def test_openapi_documents_the_filters(api: Api) -> None:
    spec = (await api.get("/openapi.json")).json()
    operation = spec["paths"][URL]["get"]
    names = {parameter["name"] for parameter in operation["parameters"]}
    assert {"monitor_id", "heartbeat_id", "resolved", "acknowledged", "from", "to"} <= names
    assert "inclusive" in operation["description"]
