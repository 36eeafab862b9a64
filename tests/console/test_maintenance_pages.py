"""/maintenance-windows over HTTP: windows shown as the monitors and heartbeats sharing them
(set through the API or the console), created, edited (moved, narrowed) and deleted through
the API's update path, errors beside their fields, role and team checks on every POST."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from tests.console.team_support import actions as all_actions
from tests.console.team_support import person
from tests.factories.api import Api, data

MONITORS = "/api/v2/monitors"
HEARTBEATS = "/api/v2/heartbeats"
WINDOW = "from=02%3A00%3A00&to=03%3A30%3A00&tz=Europe%2FBerlin&days=mon%2Csat"


async def monitor(api: Api, name: str, **window: Any) -> str:
    body = {"url": f"https://{name.lower()}.example.com", "pronounceable_name": name, **window}
    return str(data(await api.post(MONITORS, body), 201)["id"])


async def heartbeat(api: Api, name: str, **window: Any) -> str:
    return str(data(await api.post(HEARTBEATS, {"name": name, **window}), 201)["id"])


async def window_of(api: Api, path: str) -> tuple[Any, ...]:
    a = data(await api.get(path))["attributes"]
    return (
        a["maintenance_from"],
        a["maintenance_to"],
        a["maintenance_timezone"],
        a["maintenance_days"],
    )


async def actions(app: FastAPI, team: str = "acme") -> list[str]:
    """The team's maintenance window entries (the API's own are not the console's)."""
    return [a for a in await all_actions(app, team) if a.startswith("maintenance_window.")]


BERLIN = {
    "maintenance_from": "02:00:00",
    "maintenance_to": "03:30:00",
    "maintenance_timezone": "Europe/Berlin",
    "maintenance_days": ["sat", "mon"],  # as sent: the console reads them in week order
}


async def test_the_list_groups_monitors_and_heartbeats_by_their_window(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    await monitor(api, "Shop", **BERLIN)
    await heartbeat(api, "Backups", **{**BERLIN, "maintenance_days": ["mon", "sat"]})
    await monitor(api, "Blog", maintenance_from="22:00", maintenance_to="01:00")
    await monitor(api, "Plain")
    await monitor(other_api, "Theirs", **BERLIN)
    async with person(app, "vic@example.com", "viewer") as (viewer_, _):
        page = (await viewer_.get("/maintenance-windows")).text
    assert "Mon, Sat, 02:00 to 03:30 Europe/Berlin" in page
    assert "Every day, 22:00 to 01:00 (next day) UTC" in page
    assert "Covers 2 monitors and heartbeats" in page and "Covers 1 monitor or heartbeat" in page
    assert "Shop" in page and "Backups" in page and "Blog" in page
    assert "Plain" not in page and "Theirs" not in page
    assert "Next:" in page and "New maintenance window" not in page


async def test_a_window_is_created_edited_and_deleted_through_the_api_rules(
    app: FastAPI, api: Api
) -> None:
    shop = await monitor(api, "Shop")
    blog = await monitor(api, "Blog")
    backups = await heartbeat(api, "Backups")
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        form = {
            "csrf": csrf,
            "maintenance_from": "02:00",
            "maintenance_to": "03:30",
            "maintenance_timezone": "Europe/Berlin",
            "maintenance_days": ["sat", "mon"],
            "monitors": [shop, blog],
            "heartbeats": [backups],
        }
        created = await admin.post("/maintenance-windows/new", data=form)
        assert created.status_code == 303
        expected = ("02:00:00", "03:30:00", "Europe/Berlin", ["mon", "sat"])
        assert await window_of(api, f"{MONITORS}/{shop}") == expected
        assert await window_of(api, f"{HEARTBEATS}/{backups}") == expected
        edit = await admin.get(f"/maintenance-windows/edit?{WINDOW}")
        assert edit.status_code == 200 and f'value="{blog}" checked' in edit.text
        moved = {
            **form,
            "maintenance_from": "04:00",
            "monitors": [shop],
            "old_from": "02:00:00",
            "old_to": "03:30:00",
            "old_tz": "Europe/Berlin",
            "old_days": "mon,sat",
        }
        saved = await admin.post("/maintenance-windows/edit", data=moved)
        assert saved.status_code == 303
        assert (await window_of(api, f"{MONITORS}/{shop}"))[0] == "04:00:00"
        assert (await window_of(api, f"{MONITORS}/{blog}"))[0] is None  # no longer covered
        later = "from=04%3A00%3A00&to=03%3A30%3A00&tz=Europe%2FBerlin&days=mon%2Csat"
        gone = await admin.get(f"/maintenance-windows/edit?{WINDOW}")
        assert gone.status_code == 404
        fields = {"from": "04:00:00", "to": "03:30:00", "tz": "Europe/Berlin", "days": "mon,sat"}
        asked = await admin.post("/maintenance-windows/delete", data={"csrf": csrf, **fields})
        assert asked.status_code == 200 and "Delete the maintenance window" in asked.text
        done = await admin.post(
            "/maintenance-windows/delete", data={"csrf": csrf, "confirm": "yes", **fields}
        )
        assert done.status_code == 303
        assert (await admin.get(f"/maintenance-windows/edit?{later}")).status_code == 404
    assert (await window_of(api, f"{MONITORS}/{shop}"))[0] is None
    assert (await window_of(api, f"{HEARTBEATS}/{backups}"))[0] is None
    assert await actions(app) == [
        "maintenance_window.created",
        "maintenance_window.updated",
        "maintenance_window.deleted",
    ]


async def test_errors_are_shown_beside_their_fields_and_nothing_changes(
    app: FastAPI, api: Api
) -> None:
    shop = await monitor(api, "Shop")
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        empty = await admin.post("/maintenance-windows/new", data={"csrf": csrf})
        bad = await admin.post(
            "/maintenance-windows/new",
            data={
                "csrf": csrf,
                "maintenance_from": "25:00",
                "maintenance_to": "03:00",
                "maintenance_timezone": "Mars/Olympus",
                "monitors": [shop],
            },
        )
    assert empty.status_code == bad.status_code == 422
    for name in ("maintenance_from", "maintenance_to", "covers"):
        assert f'id="{name}-error"' in empty.text
    assert (
        'id="maintenance_from-error"' in bad.text and 'id="maintenance_timezone-error"' in bad.text
    )
    assert 'value="Mars/Olympus"' in bad.text and f'value="{shop}" checked' in bad.text
    assert (await window_of(api, f"{MONITORS}/{shop}"))[0] is None
    assert await actions(app) == []


async def test_roles_and_teams_are_checked_on_every_post(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    shop = await monitor(api, "Shop", **BERLIN)
    theirs = await monitor(other_api, "Theirs", **BERLIN)
    fields = {"from": "02:00:00", "to": "03:30:00", "tz": "Europe/Berlin", "days": "mon,sat"}
    form = {
        "maintenance_from": "05:00",
        "maintenance_to": "06:00",
        "monitors": [shop],
        "old_from": "02:00:00",
        "old_to": "03:30:00",
        "old_tz": "Europe/Berlin",
        "old_days": "mon,sat",
    }
    async with person(app, "rita@example.com", "responder") as (responder, csrf):
        refused = [
            await responder.get("/maintenance-windows/new"),
            await responder.post("/maintenance-windows/new", data={"csrf": csrf, **form}),
            await responder.post("/maintenance-windows/edit", data={"csrf": csrf, **form}),
            await responder.post(
                "/maintenance-windows/delete", data={"csrf": csrf, "confirm": "yes", **fields}
            ),
        ]
    assert [a.status_code for a in refused] == [403] * 4
    async with person(app, "ann@example.com", "admin", team="globex") as (admin, csrf):
        # globex's admin names acme's monitor: a 404, and nothing changes
        stolen = await admin.post(
            "/maintenance-windows/new", data={"csrf": csrf, **form, "monitors": [shop]}
        )
        assert stolen.status_code == 404
    assert (await window_of(api, f"{MONITORS}/{shop}"))[0] == "02:00:00"
    assert (await window_of(other_api, f"{MONITORS}/{theirs}"))[0] == "02:00:00"
    assert await actions(app) == [] and await actions(app, "globex") == []
