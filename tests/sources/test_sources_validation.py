"""Sources: every validation rule of create and PATCH, each reported by field."""

from __future__ import annotations

from typing import Any

import pytest

from tests.factories.api import Api, data, errors
from watchpost.sources.platforms import NOT_NULL_FIELDS, READ_ONLY_FIELDS

SOURCES = "/api/v1/sources"
MINIMAL = {"name": "app", "platform": "python"}


async def create(api: Api, **fields: Any) -> dict[str, Any]:
    return data(await api.post(SOURCES, {**MINIMAL, **fields}), 201)


async def count(api: Api) -> int:
    return len((await api.get(SOURCES)).json()["data"])


# --------------------------------------------------------------------------- create


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"platform": "python"}, ["name"]),
        ({"name": "app"}, ["platform"]),
        ({}, ["name", "platform"]),
        ({"name": "   ", "platform": "python"}, ["name"]),
        ({"name": "x" * 256, "platform": "python"}, ["name"]),
        ({"name": None, "platform": "python"}, ["name"]),
        ({"name": "app", "platform": "cobol"}, ["platform"]),
        ({"name": "app", "platform": "Python"}, ["platform"]),
        ({"name": "app", "platform": None}, ["platform"]),
    ],
)
async def test_create_requires_name_and_a_known_platform(
    api: Api, body: dict[str, Any], fields: list[str]
) -> None:
    messages, invalid = errors(await api.post(SOURCES, body))
    assert invalid == fields
    assert len(messages) == len(fields)
    assert await count(api) == 0


@pytest.mark.parametrize("field", ["logs_retention", "metrics_retention"])
@pytest.mark.parametrize(("value", "ok"), [(0, False), (1, True), (3652, True), (3653, False)])
async def test_retention_bounds(api: Api, field: str, value: int, ok: bool) -> None:
    response = await api.post(SOURCES, {**MINIMAL, field: value})
    if ok:
        assert data(response, 201)["attributes"][field] == value
    else:
        assert errors(response)[1] == [field]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", 5),
        ("platform", 1),
        ("ingesting_paused", "true"),
        ("ingesting_paused", 1),
        ("ingesting_paused", None),
        ("logs_retention", "30"),
        ("logs_retention", 30.5),
        ("logs_retention", True),
        ("logs_retention", None),
        ("metrics_retention", "30"),
        ("source_group_id", "1"),
        ("source_group_id", -1),
        ("source_group_id", True),
        ("live_tail_pattern", 5),
        ("live_tail_pattern", None),
    ],
)
async def test_wrong_types_are_rejected(api: Api, field: str, value: Any) -> None:
    assert errors(await api.post(SOURCES, {**MINIMAL, field: value}))[1] == [field]


@pytest.mark.parametrize(
    "pattern", ["", "   ", "{level", "level}", "{}", "{ }", "{a{b}}", "{1abc}", "{a b}", "x" * 1001]
)
async def test_bad_live_tail_patterns(api: Api, pattern: str) -> None:
    assert errors(await api.post(SOURCES, {**MINIMAL, "live_tail_pattern": pattern}))[1] == [
        "live_tail_pattern"
    ]


@pytest.mark.parametrize(
    "pattern", ["{message}", "PID: {message_json.pid} {level}", "plain text", "{context.host}-x"]
)
async def test_good_live_tail_patterns(api: Api, pattern: str) -> None:
    created = await create(api, live_tail_pattern=pattern)
    assert created["attributes"]["live_tail_pattern"] == pattern


async def test_unknown_fields_are_named(api: Api) -> None:
    messages, invalid = errors(await api.post(SOURCES, {**MINIMAL, "colour": "red", "id": "1"}))
    assert sorted(invalid) == ["colour", "id"]
    assert all("is not a known attribute" in message for message in messages)


@pytest.mark.parametrize("field", READ_ONLY_FIELDS)
async def test_read_only_fields_on_create(api: Api, field: str) -> None:
    messages, invalid = errors(await api.post(SOURCES, {**MINIMAL, field: "x"}))
    assert invalid == [field]
    assert messages == [f"{field} is read-only"]
    assert await count(api) == 0


async def test_every_problem_is_reported_at_once(api: Api) -> None:
    _, invalid = errors(
        await api.post(
            SOURCES,
            {
                "platform": "cobol",
                "token": "mine",
                "logs_retention": 0,
                "live_tail_pattern": "{",
                "extra": 1,
            },
        )
    )
    assert sorted(invalid) == sorted(
        ["token", "name", "platform", "logs_retention", "live_tail_pattern", "extra"]
    )


async def test_missing_source_group_is_rejected(api: Api) -> None:
    messages, invalid = errors(await api.post(SOURCES, {**MINIMAL, "source_group_id": 999}))
    assert invalid == ["source_group_id"]
    assert "999" in messages[0]
    assert await count(api) == 0


async def test_foreign_source_group_is_rejected_like_a_missing_one(
    api: Api, other_api: Api
) -> None:
    theirs = data(await other_api.post("/api/v1/source-groups", {"name": "g"}), 201)
    gid = int(theirs["id"])
    messages, invalid = errors(await api.post(SOURCES, {**MINIMAL, "source_group_id": gid}))
    assert invalid == ["source_group_id"]
    assert messages == [f"source_group_id {gid} is not a source group of this team"]
    assert await count(api) == 0


# ---------------------------------------------------------------------------- PATCH


async def test_platform_cannot_change(api: Api) -> None:
    created = await create(api)
    path = f"{SOURCES}/{created['id']}"
    for value in ("ruby", None):
        messages, invalid = errors(await api.patch(path, {"platform": value}))
        assert invalid == ["platform"]
        assert "cannot be changed" in messages[0]
    assert data(await api.get(path)) == created


@pytest.mark.parametrize("field", NOT_NULL_FIELDS)
async def test_patch_null_for_a_required_field(api: Api, field: str) -> None:
    created = await create(api)
    path = f"{SOURCES}/{created['id']}"
    messages, invalid = errors(await api.patch(path, {field: None}))
    assert invalid == [field]
    assert messages == [f"{field} must not be null"]
    assert data(await api.get(path)) == created


@pytest.mark.parametrize("field", READ_ONLY_FIELDS)
async def test_read_only_fields_on_patch(api: Api, field: str) -> None:
    created = await create(api)
    path = f"{SOURCES}/{created['id']}"
    value = created["attributes"][field]
    messages, invalid = errors(await api.patch(path, {field: value, "name": "changed"}))
    assert invalid == [field]
    assert messages == [f"{field} is read-only"]
    assert data(await api.get(path)) == created


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", ""),
        ("name", 1),
        ("ingesting_paused", "false"),
        ("logs_retention", 0),
        ("logs_retention", 3653),
        ("metrics_retention", 0),
        ("metrics_retention", 3653),
        ("metrics_retention", "7"),
        ("live_tail_pattern", "{oops"),
        ("source_group_id", "1"),
        ("unknown", 1),
    ],
)
async def test_patch_validates_like_create(api: Api, field: str, value: Any) -> None:
    created = await create(api)
    path = f"{SOURCES}/{created['id']}"
    assert errors(await api.patch(path, {field: value}))[1] == [field]
    assert data(await api.get(path)) == created


async def test_patch_reports_every_problem_at_once(api: Api) -> None:
    created = await create(api)
    _, invalid = errors(
        await api.patch(
            f"{SOURCES}/{created['id']}",
            {"platform": "ruby", "name": None, "token": "x", "logs_retention": "3", "foo": 1},
        )
    )
    assert sorted(invalid) == sorted(["platform", "name", "token", "logs_retention", "foo"])


async def test_patch_to_a_missing_or_foreign_group(api: Api, other_api: Api) -> None:
    created = await create(api)
    path = f"{SOURCES}/{created['id']}"
    theirs = data(await other_api.post("/api/v1/source-groups", {"name": "g"}), 201)
    for gid in (999, int(theirs["id"])):
        assert errors(await api.patch(path, {"source_group_id": gid}))[1] == ["source_group_id"]
    assert data(await api.get(path)) == created
    listed = await other_api.get(f"/api/v1/source-groups/{theirs['id']}/sources")
    assert listed.json()["data"] == []
