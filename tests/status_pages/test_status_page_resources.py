from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from watchpost.clock import FrozenClock
from watchpost.people.accounts import create_user
from watchpost.status_pages.resource_types import (
    MANUAL,
    RESOURCE_KINDS,
    RESOURCE_TYPES,
    WIDGET_TYPES,
    is_supported,
    model_of,
)

PAGES = "/api/v2/status-pages"
SPEC_FIELDS = {
    "status_page_section_id",
    "resource_id",
    "resource_type",
    "history",
    "widget_type",
    "public_name",
    "explanation",
    "position",
    "mark_as_down_for",
    "mark_as_down_metadata_rule",
    "mark_as_degraded_for",
    "availability",
    "status",
    "status_history",
}
UNSUPPORTED = [name for name in RESOURCE_TYPES if not is_supported(name)]


async def new_page(api: Api, subdomain: str = "acme") -> str:
    page = data(await api.post(PAGES, {"subdomain": subdomain}), 201)
    return str(page["id"])


async def add(api: Api, page_id: str, **body: Any) -> dict[str, Any]:
    return data(await api.post(f"{PAGES}/{page_id}/resources", body), 201)


async def section(api: Api, page_id: str, **body: Any) -> int:
    return int(data(await api.post(f"{PAGES}/{page_id}/sections", body), 201)["id"])


async def positions(api: Api, page_id: str, section_id: int) -> list[str]:
    """Resource public names of a section, in position order."""
    items = (await api.get(f"{PAGES}/{page_id}/resources")).json()["data"]
    mine = [
        i["attributes"] for i in items if i["attributes"]["status_page_section_id"] == section_id
    ]
    mine.sort(key=lambda a: a["position"])
    assert [a["position"] for a in mine] == list(range(len(mine)))
    return [a["public_name"] for a in mine]


# -------------------------------------------------------------------------- defaults


async def test_empty_body_creates_manual_item_with_spec_defaults(api: Api) -> None:
    page_id = await new_page(api)
    created = await add(api, page_id)
    assert created["type"] == "status_page_resource"
    attrs = created["attributes"]
    assert set(attrs) >= SPEC_FIELDS
    assert attrs["resource_type"] == MANUAL
    assert attrs["resource_id"] is None
    assert attrs["mark_as_down_for"] == "any_incident"
    assert attrs["mark_as_degraded_for"] == "no_incident"
    assert attrs["mark_as_down_metadata_rule"] is None
    assert attrs["widget_type"] == "history" and attrs["history"] is True
    assert attrs["position"] == 0
    assert attrs["fixed_position"] is False
    assert attrs["public_name"] == "Manually tracked item"
    assert attrs["explanation"] == ""
    assert attrs["status"] == "operational"
    assert len(attrs["status_history"]) == 90
    # the page had no section: one was created and holds the resource
    sections = (await api.get(f"{PAGES}/{page_id}/sections")).json()["data"]
    assert [s["id"] for s in sections] == [str(attrs["status_page_section_id"])]
    assert sections[0]["attributes"]["name"] == ""


async def test_default_section_is_the_first_one(api: Api) -> None:
    page_id = await new_page(api)
    second = await section(api, page_id, name="B")
    first = await section(api, page_id, name="A", position=0)
    assert first != second
    created = await add(api, page_id)
    assert created["attributes"]["status_page_section_id"] == first


async def test_appended_when_position_omitted(api: Api) -> None:
    page_id = await new_page(api)
    for name in "abc":
        created = await add(api, page_id, public_name=name)
    assert created["attributes"]["position"] == 2
    sid = created["attributes"]["status_page_section_id"]
    assert await positions(api, page_id, sid) == ["a", "b", "c"]


async def test_values_are_stored_and_read_back(api: Api) -> None:
    page_id = await new_page(api)
    created = await add(api, page_id, public_name="API", explanation="Our API", fixed_position=True)
    path = f"{PAGES}/{page_id}/resources/{created['id']}"
    fetched = data(await api.get(path))
    assert fetched == created
    assert fetched["attributes"]["explanation"] == "Our API"
    assert fetched["attributes"]["fixed_position"] is True


# --------------------------------------------------------------- types and widgets


async def make_item(app: FastAPI, api: Api, resource_type: str) -> str | None:
    """An item of the type in the team, created through its ORM model; None for manual."""
    if resource_type == MANUAL:
        return None
    model = model_of(resource_type)
    assert model is not None
    from tests.factories.status_pages import build_item

    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        item = build_item(resource_type, model, team_id=api.team_id, now=ctx.clock.now())
        session.add(item)
        await session.flush()
        return str(item.id)


@pytest.mark.parametrize("resource_type", RESOURCE_TYPES)
async def test_each_widget_against_each_resource_type(
    app: FastAPI, api: Api, resource_type: str
) -> None:
    """Every (resource_type, widget_type) pair: accepted exactly when the table lists it."""
    page_id = await new_page(api)
    url = f"{PAGES}/{page_id}/resources"
    supported = is_supported(resource_type)
    item_id = await make_item(app, api, resource_type) if supported else "1"
    for widget in WIDGET_TYPES:
        fits = widget in RESOURCE_KINDS[resource_type].widgets
        body: dict[str, Any] = {"resource_type": resource_type, "widget_type": widget}
        if item_id is not None:
            body["resource_id"] = item_id
        response = await api.post(url, body)
        if not supported:
            messages, fields = errors(response)
            assert "resource_type" in fields
            assert any(
                "not supported by this server yet" in m and resource_type in m for m in messages
            )
            assert ("widget_type" in fields) is not fits, widget
        elif fits:
            attrs = data(response, 201)["attributes"]
            assert attrs["widget_type"] == widget
            assert attrs["history"] is (widget in ("history", "intraday_history"))
            assert attrs["resource_id"] == (int(item_id) if item_id else None)
        else:
            messages, fields = errors(response)
            assert fields == ["widget_type"] and resource_type in messages[0], widget


@pytest.mark.parametrize(
    "resource_type", [t for t in RESOURCE_TYPES if t != MANUAL and is_supported(t)]
)
async def test_item_types_resolve_ids_of_the_team_only(
    app: FastAPI, api: Api, other_api: Api, resource_type: str
) -> None:
    page_id = await new_page(api)
    url = f"{PAGES}/{page_id}/resources"
    mine = await make_item(app, api, resource_type)
    theirs = await make_item(app, other_api, resource_type)
    created = await add(api, page_id, resource_type=resource_type, resource_id=mine)
    assert created["attributes"]["resource_id"] == int(str(mine))
    assert created["attributes"]["public_name"]  # the item's own name
    assert created["attributes"]["status"] == "not_monitored"  # nothing recorded yet
    for bad in (theirs, "999999", "abc", None):
        _, fields = errors(
            await api.post(url, {"resource_type": resource_type, "resource_id": bad})
        )
        assert fields == ["resource_id"], bad


async def test_manual_item_rejects_resource_id(api: Api) -> None:
    page_id = await new_page(api)
    _, fields = errors(
        await api.post(
            f"{PAGES}/{page_id}/resources", {"resource_type": MANUAL, "resource_id": "1"}
        )
    )
    assert fields == ["resource_id"]
    created = await add(api, page_id, resource_type=MANUAL, resource_id=None)
    assert created["attributes"]["resource_id"] is None


async def test_resource_id_without_type_is_refused(api: Api) -> None:
    page_id = await new_page(api)
    _, fields = errors(await api.post(f"{PAGES}/{page_id}/resources", {"resource_id": "1"}))
    assert "resource_type" in fields


@pytest.mark.parametrize("resource_type", UNSUPPORTED)
async def test_unsupported_types_are_422_naming_the_type(api: Api, resource_type: str) -> None:
    page_id = await new_page(api)
    body = {"resource_type": resource_type, "resource_id": "1"}
    messages, fields = errors(await api.post(f"{PAGES}/{page_id}/resources", body))
    assert fields == ["resource_type"]
    assert messages == [f"resource_type {resource_type} is not supported by this server yet"]


async def test_unknown_type_and_widget(api: Api) -> None:
    page_id = await new_page(api)
    _, fields = errors(
        await api.post(f"{PAGES}/{page_id}/resources", {"resource_type": "Car", "widget_type": "x"})
    )
    assert set(fields) == {"resource_type", "widget_type"}


@pytest.mark.parametrize(
    ("body", "widget"),
    [
        ({"history": True}, "history"),
        ({"history": False}, "plain"),
        ({"widget_type": "intraday_history", "history": False}, "intraday_history"),
        ({"widget_type": "plain", "history": True}, "plain"),
    ],
)
async def test_widget_type_takes_preference_over_history(
    api: Api, body: dict[str, Any], widget: str
) -> None:
    page_id = await new_page(api)
    attrs = (await add(api, page_id, **body))["attributes"]
    assert attrs["widget_type"] == widget
    assert attrs["history"] is (widget != "plain")


async def test_patch_history_keeps_a_history_widget(api: Api) -> None:
    page_id = await new_page(api)
    created = await add(api, page_id, widget_type="intraday_history")
    path = f"{PAGES}/{page_id}/resources/{created['id']}"
    assert data(await api.patch(path, {"history": True}))["attributes"]["widget_type"] == (
        "intraday_history"
    )
    assert data(await api.patch(path, {"history": False}))["attributes"]["widget_type"] == "plain"
    assert data(await api.patch(path, {"history": True}))["attributes"]["widget_type"] == "history"


# ---------------------------------------------------------------- metadata rules


async def add_users(app: FastAPI) -> None:
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        now = ctx.clock.now()
        await create_user(session, team_name="acme", email="Ann@Acme.example", name="Ann", now=now)
        await create_user(session, team_name="acme", email="bob@acme.example", name="Bob", now=now)
        await create_user(
            session, team_name="globex", email="eve@globex.example", name="Eve", now=now
        )


async def test_metadata_rule_required_for_matching_mode(api: Api) -> None:
    page_id = await new_page(api)
    url = f"{PAGES}/{page_id}/resources"
    _messages, fields = errors(
        await api.post(
            url,
            {
                "mark_as_down_for": "incident_matching_metadata",
                "mark_as_degraded_for": "incident_matching_metadata",
            },
        )
    )
    assert fields == ["mark_as_down_metadata_rule", "mark_as_degraded_metadata_rule"]
    _, fields = errors(
        await api.post(
            url, {"mark_as_down_metadata_rule": {"key": "k", "values": [{"value": "v"}]}}
        )
    )
    assert fields == ["mark_as_down_metadata_rule"]  # only with incident_matching_metadata


async def test_metadata_rule_resolution(app: FastAPI, api: Api) -> None:
    await add_users(app)
    page_id = await new_page(api)
    rule = {
        "key": "owner",
        "values": [
            {"value": "payments"},
            {"type": "User", "email": "ann@acme.example"},
            {"type": "User", "name": "Bob"},
            {"type": "Team", "name": "acme"},
        ],
    }
    created = await add(
        api,
        page_id,
        mark_as_down_for="incident_matching_metadata",
        mark_as_down_metadata_rule=rule,
        mark_as_degraded_for="incident_matching_metadata",
        mark_as_degraded_metadata_rule={"key": "sev", "values": [{"type": "String", "value": "2"}]},
    )
    values = created["attributes"]["mark_as_down_metadata_rule"]["values"]
    assert created["attributes"]["mark_as_down_metadata_rule"]["key"] == "owner"
    assert values[0] == {
        "type": "String",
        "item_id": None,
        "name": "payments",
        "value": "payments",
        "email": None,
    }
    assert values[1]["type"] == "User" and values[1]["name"] == "Ann"
    assert values[1]["email"] == "ann@acme.example" and values[1]["item_id"].isdigit()
    assert values[2]["name"] == "Bob"
    assert values[3] == {
        "type": "Team",
        "item_id": str(api.team_id),
        "name": "acme",
        "value": None,
        "email": None,
    }
    degraded = created["attributes"]["mark_as_degraded_metadata_rule"]
    assert degraded["values"][0]["name"] == "2"


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ({"type": "User", "email": "nobody@acme.example"}, "nobody@acme.example"),
        ({"type": "User", "email": "eve@globex.example"}, "eve@globex.example"),
        ({"type": "User", "name": "Zed"}, "Zed"),
        ({"type": "Team", "name": "globex"}, "globex"),
        ({"type": "Schedule", "name": "x"}, "Schedule"),
        ({"type": "User"}, "email, name or item_id"),
        ({}, "needs a value"),
    ],
)
async def test_unknown_metadata_items_are_422_naming_them(
    app: FastAPI, api: Api, other_api: Api, value: dict[str, Any], named: str
) -> None:
    await add_users(app)
    page_id = await new_page(api)
    messages, fields = errors(
        await api.post(
            f"{PAGES}/{page_id}/resources",
            {
                "mark_as_down_for": "incident_matching_metadata",
                "mark_as_down_metadata_rule": {"key": "owner", "values": [value]},
            },
        )
    )
    assert fields == ["mark_as_down_metadata_rule"]
    assert named in messages[0]


async def test_patch_mode_away_from_matching_clears_the_rule(api: Api) -> None:
    page_id = await new_page(api)
    created = await add(
        api,
        page_id,
        mark_as_down_for="incident_matching_metadata",
        mark_as_down_metadata_rule={"key": "k", "values": [{"value": "v"}]},
    )
    path = f"{PAGES}/{page_id}/resources/{created['id']}"
    kept = data(await api.patch(path, {"public_name": "x"}))["attributes"]
    assert kept["mark_as_down_metadata_rule"]["key"] == "k"
    cleared = data(await api.patch(path, {"mark_as_down_for": "no_incident"}))["attributes"]
    assert cleared["mark_as_down_metadata_rule"] is None
    _, fields = errors(await api.patch(path, {"mark_as_down_for": "incident_matching_metadata"}))
    assert fields == ["mark_as_down_metadata_rule"]


# ------------------------------------------------------------------- positions


async def test_occupied_position_shifts_the_rest_down(api: Api) -> None:
    page_id = await new_page(api)
    for name in "abc":
        created = await add(api, page_id, public_name=name)
    sid = created["attributes"]["status_page_section_id"]
    inserted = await add(api, page_id, public_name="x", position=1)
    assert inserted["attributes"]["position"] == 1
    assert await positions(api, page_id, sid) == ["a", "x", "b", "c"]
    far = await add(api, page_id, public_name="y", position=99)
    assert far["attributes"]["position"] == 4


async def test_fixed_position_items_stay(api: Api) -> None:
    page_id = await new_page(api)
    await add(api, page_id, public_name="a")
    created = await add(api, page_id, public_name="f", fixed_position=True)
    await add(api, page_id, public_name="b")
    sid = created["attributes"]["status_page_section_id"]
    await add(api, page_id, public_name="x", position=0)
    assert await positions(api, page_id, sid) == ["x", "f", "a", "b"]
    # an insert at the fixed item's number pushes it one further (the hosted API's rule)
    data(await api.post(f"{PAGES}/{page_id}/resources", {"public_name": "y", "position": 1}), 201)
    assert await positions(api, page_id, sid) == ["x", "y", "f", "a", "b"]
    fixed = data(await api.get(f"{PAGES}/{page_id}/resources/{created['id']}"))
    assert fixed["attributes"]["position"] == 2


async def test_patch_moves_within_and_across_sections(api: Api) -> None:
    page_id = await new_page(api)
    first = await section(api, page_id, name="one")
    second = await section(api, page_id, name="two")
    ids = {}
    for name in "abc":
        ids[name] = (await add(api, page_id, public_name=name, status_page_section_id=first))["id"]
    await add(api, page_id, public_name="z", status_page_section_id=second)
    base = f"{PAGES}/{page_id}/resources"
    moved = data(await api.patch(f"{base}/{ids['c']}", {"position": 0}))
    assert moved["attributes"]["position"] == 0
    assert await positions(api, page_id, first) == ["c", "a", "b"]
    moved = data(
        await api.patch(f"{base}/{ids['a']}", {"status_page_section_id": second, "position": 0})
    )
    assert moved["attributes"]["status_page_section_id"] == second
    assert await positions(api, page_id, first) == ["c", "b"]
    assert await positions(api, page_id, second) == ["a", "z"]
    data(await api.patch(f"{base}/{ids['c']}", {"status_page_section_id": second}))
    assert await positions(api, page_id, second) == ["a", "z", "c"]
    assert await positions(api, page_id, first) == ["b"]


async def test_delete_keeps_positions_contiguous(api: Api) -> None:
    page_id = await new_page(api)
    ids = [(await add(api, page_id, public_name=n))["id"] for n in "abcd"]
    sid = data(await api.get(f"{PAGES}/{page_id}/resources/{ids[0]}"))["attributes"][
        "status_page_section_id"
    ]
    assert (await api.delete(f"{PAGES}/{page_id}/resources/{ids[1]}")).status_code == 204
    assert await positions(api, page_id, sid) == ["a", "c", "d"]


async def test_section_of_another_page_is_422(api: Api) -> None:
    page_id = await new_page(api)
    other_page = await new_page(api, "second")
    foreign = await section(api, other_page)
    _, fields = errors(
        await api.post(f"{PAGES}/{page_id}/resources", {"status_page_section_id": foreign})
    )
    assert fields == ["status_page_section_id"]


async def test_patch_rejects_null_for_required_attributes(api: Api) -> None:
    page_id = await new_page(api)
    created = await add(api, page_id)
    _, fields = errors(
        await api.patch(
            f"{PAGES}/{page_id}/resources/{created['id']}",
            {"widget_type": None, "mark_as_down_for": None, "position": None},
        )
    )
    assert set(fields) == {"widget_type", "mark_as_down_for", "position"}


# ------------------------------------------------------------ status computation


async def test_manual_item_status_is_computed_from_the_record(api: Api, clock: FrozenClock) -> None:
    page = data(await api.post(PAGES, {"subdomain": "acme", "history": 7}), 201)
    created = await add(api, str(page["id"]))
    attrs = created["attributes"]
    # just added: no observed time yet, so nothing claims a perfect record
    assert attrs["availability"] == 1.0
    assert [d["status"] for d in attrs["status_history"]] == ["not_monitored"] * 7
    assert attrs["status_history"][-1]["day"] == "2026-01-01"
    clock.advance(3600 * 30)
    later = data(await api.get(f"{PAGES}/{page['id']}/resources/{created['id']}"))["attributes"]
    assert later["availability"] == 1.0
    assert [d["status"] for d in later["status_history"]][-2:] == ["operational"] * 2
    assert later["status_history"][0]["status"] == "not_monitored"
    assert later["status_history"][-1] == {
        "day": "2026-01-02",
        "status": "operational",
        "downtime_duration": 0,
        "maintenance_duration": 0,
    }


# -------------------------------------------------------------- isolation, 404s


async def test_resources_isolated_between_teams(api: Api, other_api: Api) -> None:
    page_id = await new_page(api)
    created = await add(api, page_id)
    base = f"{PAGES}/{page_id}/resources"
    path = f"{base}/{created['id']}"
    assert (await other_api.get(base)).status_code == 404
    assert (await other_api.post(base, {})).status_code == 404
    assert (await other_api.get(path)).status_code == 404
    assert (await other_api.patch(path, {"public_name": "x"})).status_code == 404
    assert (await other_api.delete(path)).status_code == 404
    assert data(await api.get(path)) == created
    # nothing was added to the page by the other team
    assert len((await api.get(base)).json()["data"]) == 1


async def test_resource_404s(api: Api) -> None:
    page_id = await new_page(api)
    other_page = await new_page(api, "two")
    created = await add(api, page_id)
    assert (await api.get(f"{PAGES}/{other_page}/resources/{created['id']}")).status_code == 404
    assert (await api.get(f"{PAGES}/{page_id}/resources/x")).status_code == 404
    assert (await api.get(f"{PAGES}/999/resources")).status_code == 404
    assert (await api.delete(f"{PAGES}/{page_id}/resources/{created['id']}")).status_code == 204
    assert (await api.delete(f"{PAGES}/{page_id}/resources/{created['id']}")).status_code == 404


async def test_resource_list_pagination(api: Api) -> None:
    page_id = await new_page(api)
    for name in "abcde":
        await add(api, page_id, public_name=name)
    body = (await api.get(f"{PAGES}/{page_id}/resources", params={"per_page": 2})).json()
    assert [i["attributes"]["public_name"] for i in body["data"]] == ["a", "b"]
    assert "page=3" in body["pagination"]["last"]
    assert body["pagination"]["prev"] is None


async def test_openapi_shows_resource_shapes_and_rules(api: Api) -> None:
    spec = (await api.get("/openapi.json")).json()
    post = spec["paths"][f"{PAGES}/{{status_page_id}}/resources"]["post"]
    schema = post["requestBody"]["content"]["application/json"]["schema"]
    assert "$ref" not in str(schema)  # nested rule models are inlined
    assert "mark_as_down_metadata_rule" in schema["properties"]
    for resource_type in RESOURCE_TYPES:
        assert resource_type in post["description"]
    assert "201" in post["responses"] and "422" in post["responses"]
