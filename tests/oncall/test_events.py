"""A calendar's events and rotation: the hosted API's shapes and rules (members only, no
past starts, history untouchable, bulk replace, rotation generation and its cap)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from tests.factories.delivery import advance, create_member
from tests.factories.hostile_times import HOSTILE_TIMES, OUT_OF_RANGE_DAYS

ON_CALLS = "/api/v2/on-calls"
EVENTS = f"{ON_CALLS}/default/events"


async def members(app: FastAPI) -> None:
    await create_member(app, "acme", "ann@example.com", "Ann")
    await create_member(app, "acme", "bob@example.com", "Bob")
    await create_member(app, "acme", "cid@example.com", "Cid")


def body(start: str, end: str, *users: str, **more: Any) -> dict[str, Any]:
    return {"starts_at": start, "ends_at": end, "users": list(users), **more}


async def put(api: Api, path: str, json: Any) -> httpx.Response:
    return await api.client.put(path, json=json, headers=api.headers)


async def test_events_are_made_read_changed_and_deleted(app: FastAPI, api: Api) -> None:
    await members(app)
    made = await api.post(
        EVENTS, body("2026-01-02T09:00:00+01:00", "2026-01-03T08:00:00Z", "Ann@example.com")
    )
    assert made.status_code == 201, made.text
    shown = made.json()
    flat = {
        "users": ["ann@example.com"],
        "starts_at": "2026-01-02T08:00:00Z",
        "ends_at": "2026-01-03T08:00:00Z",
        "override": False,
    }
    assert {k: shown[k] for k in flat} == flat and isinstance(shown["id"], int)
    assert shown["data"] == {"id": str(shown["id"]), "type": "on_call_event", "attributes": flat}
    path = f"{EVENTS}/{shown['id']}"
    assert (await api.get(path)).json() == shown
    listed = (await api.get(EVENTS)).json()
    assert listed["events"] == [{"id": shown["id"], **flat}]
    assert listed["data"] == [shown["data"]]
    changed = (await api.patch(path, {"users": ["bob@example.com"], "override": True})).json()
    assert changed["users"] == ["bob@example.com"] and changed["override"] is True
    assert changed["starts_at"] == flat["starts_at"]
    assert changed["data"]["attributes"]["users"] == ["bob@example.com"]
    assert errors(await api.patch(path, {"ends_at": "2026-01-02T08:00:00Z"}))[1] == ["ends_at"]
    assert errors(await api.patch(path, {"users": None}))[1] == ["users"]
    assert (await api.delete(path)).status_code == 204
    assert (await api.get(path)).status_code == 404
    assert (await api.get(f"{EVENTS}/x")).status_code == 404
    assert (await api.get(f"{ON_CALLS}/98765/events")).status_code == 404


async def test_bad_events_are_refused(app: FastAPI, api: Api, other_api: Api) -> None:
    await members(app)
    await create_member(app, "globex", "gus@example.com", "Gus")
    cases = [
        (body("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "gus@example.com"), ["users"]),
        (body("2025-12-31T23:59:59Z", "2026-01-03T00:00:00Z", "ann@example.com"), ["starts_at"]),
        (body("2026-01-03T00:00:00Z", "2026-01-03T00:00:00Z", "ann@example.com"), ["ends_at"]),
        (body("tomorrow", "2026-01-03T00:00:00Z", "ann@example.com"), ["starts_at"]),
        (body("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "ann@example.com", x=1), ["x"]),
        ({"starts_at": "2026-01-02T00:00:00Z"}, ["ends_at", "users"]),
        (body("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", *["a@b.c"] * 51), ["users"]),
    ]
    for sent, fields in cases:
        messages, invalid = errors(await api.post(EVENTS, sent))
        assert invalid == fields, (sent, messages)
    messages, _ = errors(await api.post(EVENTS, cases[0][0]))
    assert "gus@example.com" in messages[0]
    assert (await api.get(EVENTS)).json()["events"] == []
    # another team's calendar is missing, whatever the body
    mine = data(await api.post(ON_CALLS, {"name": "Mine"}), 201)
    ok = body("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "ann@example.com")
    assert (await other_api.post(f"{ON_CALLS}/{mine['id']}/events", ok)).status_code == 404
    assert (
        await put(other_api, f"{ON_CALLS}/{mine['id']}/events", {"events": []})
    ).status_code == 404


@pytest.mark.parametrize("value", [*HOSTILE_TIMES, *OUT_OF_RANGE_DAYS, "2200-01-01T00:00:01Z"])
async def test_a_time_that_cannot_be_read_or_held_is_a_422_naming_it(
    app: FastAPI, api: Api, value: str
) -> None:
    await members(app)
    start, end = "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"
    made = data(await api.post(ON_CALLS, {"name": "Mine"}), 201)
    path = f"{ON_CALLS}/{made['id']}"
    rotation = {
        "users": ["ann@example.com"],
        "rotation_length": 1,
        "rotation_interval": "day",
        "start_rotations_at": start,
        "end_rotations_at": end,
    }
    sent = [
        (f"{path}/events", body(value, end, "ann@example.com"), "starts_at"),
        (f"{path}/events", body(start, value, "ann@example.com"), "ends_at"),
        (f"{path}/rotation", {**rotation, "start_rotations_at": value}, "start_rotations_at"),
        (f"{path}/rotation", {**rotation, "end_rotations_at": value}, "end_rotations_at"),
    ]
    for url, json, field in sent:
        messages, invalid = errors(await api.post(url, json))
        assert invalid == [field], (value[:40], messages)
        assert messages[0].startswith(f"{field} must "), messages
    bulk = {"events": [body(start, end, "ann@example.com"), body(start, value, "bob@example.com")]}
    # a value longer than a time may be is refused by the body's schema, naming `events`
    named = "events[1].ends_at" if len(value) <= 64 else "events"
    assert errors(await put(api, f"{path}/events", bulk))[1] == [named]
    assert (await api.get(f"{path}/events")).json()["events"] == []
    assert (await api.get(f"{path}/rotation")).status_code == 404


async def test_times_in_the_forms_rfc_3339_allows_are_read(app: FastAPI, api: Api) -> None:
    await members(app)
    for start, end in (
        ("2026-01-02t09:00:00z", "2026-01-02 10:00:00Z"),
        ("2026-01-02T09:00:00 UTC", "2200-01-01T00:00:00Z"),
    ):
        made = await api.post(EVENTS, body(start, end, "ann@example.com"))
        assert made.status_code == 201, made.text
        assert made.json()["starts_at"] == "2026-01-02T09:00:00Z"


async def test_history_cannot_be_changed_but_a_running_event_can(app: FastAPI, api: Api) -> None:
    await members(app)
    ended = (
        await api.post(
            EVENTS, body("2026-01-01T00:00:00Z", "2026-01-01T12:00:00Z", "ann@example.com")
        )
    ).json()
    running = (
        await api.post(
            EVENTS, body("2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z", "bob@example.com")
        )
    ).json()
    advance(app, 2 * 86400)  # 2026-01-03: the first ended before today 00:00 UTC
    for response in (
        await api.patch(f"{EVENTS}/{ended['id']}", {"users": ["bob@example.com"]}),
        await api.delete(f"{EVENTS}/{ended['id']}"),
    ):
        assert response.status_code == 422
        assert response.json()["errors"] == [
            "An event that ended before today 00:00 UTC cannot be changed or deleted"
        ]
    # the running one keeps its start (before today) and can end sooner
    changed = (
        await api.patch(f"{EVENTS}/{running['id']}", {"ends_at": "2026-01-04T00:00:00Z"})
    ).json()
    assert (changed["starts_at"], changed["ends_at"]) == (
        "2026-01-01T00:00:00Z",
        "2026-01-04T00:00:00Z",
    )
    # but not move its start into the past
    assert errors(
        await api.patch(f"{EVENTS}/{running['id']}", {"starts_at": "2026-01-02T00:00:00Z"})
    )[1] == ["starts_at"]
    # the list shows the last 30 days' ends and what follows
    assert [e["id"] for e in (await api.get(EVENTS)).json()["events"]] == [
        ended["id"],
        running["id"],
    ]
    advance(app, 31 * 86400)
    assert [e["id"] for e in (await api.get(EVENTS)).json()["events"]] == [running["id"]]


async def test_put_replaces_the_events_from_today(app: FastAPI, api: Api) -> None:
    await members(app)
    past = (
        await api.post(
            EVENTS, body("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "ann@example.com")
        )
    ).json()
    (
        await api.post(
            EVENTS, body("2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z", "ann@example.com")
        )
    )
    advance(app, 86400)  # 2026-01-02: the first started before today
    sent = [
        body("2026-01-05T00:00:00Z", "2026-01-06T00:00:00Z", "cid@example.com", id=3),
        body("2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "bob@example.com", override=True),
    ]
    response = await put(api, EVENTS, {"events": sent})
    assert response.status_code == 200, response.text
    replaced = response.json()
    assert [(e["users"], e["override"]) for e in replaced["events"]] == [
        (["bob@example.com"], True),
        (["cid@example.com"], False),
    ]
    assert [e["id"] for e in replaced["data"]] == [str(e["id"]) for e in replaced["events"]]
    listed = (await api.get(EVENTS)).json()["events"]
    assert [e["id"] for e in listed] == [past["id"], *(e["id"] for e in replaced["events"])]
    # all or nothing: one bad event changes nothing
    bad = {
        "events": [
            sent[1],
            body("2026-01-01T00:00:00Z", "2026-01-09T00:00:00Z", "bob@example.com"),
            body("2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z", "gus@example.com"),
        ]
    }
    assert errors(await put(api, EVENTS, bad))[1] == ["events[1].starts_at", "events[2].users"]
    assert (await api.get(EVENTS)).json()["events"] == listed
    too_many = {"events": [sent[0]] * 1001}
    assert errors(await put(api, EVENTS, too_many))[1] == ["events"]
    assert (await put(api, EVENTS, {"events": []})).json() == {"events": [], "data": []}
    assert [e["id"] for e in (await api.get(EVENTS)).json()["events"]] == [past["id"]]


async def test_a_rotation_makes_events_in_turn(app: FastAPI, api: Api) -> None:
    await members(app)
    path = f"{ON_CALLS}/default/rotation"
    assert (await api.get(path)).status_code == 404
    keep_override = (
        await api.post(
            EVENTS,
            body("2026-01-02T00:00:00Z", "2026-01-02T06:00:00Z", "cid@example.com", override=True),
        )
    ).json()
    replaced = (
        await api.post(
            EVENTS, body("2026-01-02T00:00:00Z", "2026-01-02T06:00:00Z", "cid@example.com")
        )
    ).json()
    advance(app, 86400)  # 2026-01-02 00:00: slots ended before today are not made
    sent = {
        "users": ["ann@example.com", "bob@example.com"],
        "rotation_length": 12,
        "rotation_period": "hour",
        "start_rotations_at": "2025-12-31T00:00:00Z",
        "end_rotations_at": "2026-01-03T06:00:00Z",
        "team_name": "acme",
    }
    response = await api.post(path, sent)
    assert response.status_code == 201, response.text
    echoed = response.json()
    assert {k: echoed[k] for k in sent if k != "team_name"} == {
        k: v for k, v in sent.items() if k != "team_name"
    }
    assert echoed["rotation_interval"] == "hour"
    assert (await api.get(path)).json() == echoed
    listed = (await api.get(EVENTS)).json()["events"]
    assert replaced["id"] not in [e["id"] for e in listed]
    assert [e["id"] for e in listed if e["override"]] == [keep_override["id"]]
    regular = [(e["starts_at"], e["ends_at"], e["users"]) for e in listed if not e["override"]]
    # slots from 2025-12-31 00:00, 12 h each: the fifth (index 4: Ann) is the first to end
    # after today 00:00; the last one is cut at the end
    assert regular == [
        ("2026-01-02T00:00:00Z", "2026-01-02T12:00:00Z", ["ann@example.com"]),
        ("2026-01-02T12:00:00Z", "2026-01-03T00:00:00Z", ["bob@example.com"]),
        ("2026-01-03T00:00:00Z", "2026-01-03T06:00:00Z", ["ann@example.com"]),
    ]
    # Terraform's name for the interval, and a day rotation
    terraform = {**sent, "rotation_interval": "day", "rotation_length": 1}
    del terraform["rotation_period"]
    assert (await api.post(path, terraform)).json()["rotation_interval"] == "day"


async def test_bad_rotations_are_refused_and_capped(app: FastAPI, api: Api) -> None:
    await members(app)
    path = f"{ON_CALLS}/default/rotation"
    good = {
        "users": ["ann@example.com"],
        "rotation_length": 1,
        "rotation_interval": "hour",
        "start_rotations_at": "2026-01-01T00:00:00Z",
        "end_rotations_at": "2026-01-02T00:00:00Z",
    }
    cases = [
        ({**good, "users": ["nobody@example.com"]}, ["users"]),
        ({**good, "users": []}, ["users"]),
        ({**good, "rotation_length": 0}, ["rotation_length"]),
        ({**good, "rotation_interval": "month"}, ["rotation_interval"]),
        ({k: v for k, v in good.items() if k != "rotation_interval"}, ["rotation_interval"]),
        ({**good, "rotation_period": "day"}, ["rotation_period"]),
        ({**good, "end_rotations_at": "2026-01-01T00:00:00Z"}, ["end_rotations_at"]),
        ({**good, "start_rotations_at": "soon"}, ["start_rotations_at"]),
        ({**good, "team_name": "globex"}, ["team_name"]),
        ({**good, "timezone": "Mars/Olympus"}, ["timezone"]),
        ({**good, "working_hours": [{"day": "mon", "start_time": "09:00"}]}, ["working_hours"]),
        ({**good, "working_hours": [{"day": "monday", "start_time": "9:00"}]}, ["working_hours"]),
        # 20,001 hours: one event too many
        ({**good, "end_rotations_at": "2028-04-13T09:00:00Z"}, ["end_rotations_at"]),
    ]
    for sent, fields in cases:
        messages, invalid = errors(await api.post(path, sent))
        assert invalid == fields, (sent, messages)
    messages, _ = errors(await api.post(path, cases[-1][0]))
    assert messages == ["end_rotations_at makes more than 20000 events, the most allowed"]
    assert (await api.get(path)).status_code == 404
    assert (await api.get(EVENTS)).json()["events"] == []
    # exactly the cap is fine
    capped = {**good, "end_rotations_at": "2028-04-13T08:00:00Z"}
    assert (await api.post(path, capped)).status_code == 201
    assert len((await api.get(EVENTS)).json()["events"]) == 5000  # the list's own bound


async def test_a_rotation_follows_its_time_zone_and_working_hours(app: FastAPI, api: Api) -> None:
    """Prague: UTC+1 in winter, +2 from 2026-03-29 02:00 local. Daily handovers at 09:00
    local; Ann and Bob on call 09:00-17:00 on weekdays only, and overnight on Friday."""
    await members(app)
    path = f"{ON_CALLS}/default/rotation"
    sent = {
        "users": ["ann@example.com", "bob@example.com"],
        "rotation_length": 1,
        "rotation_interval": "day",
        "start_rotations_at": "2026-03-26T09:00:00+01:00",  # a Thursday
        "end_rotations_at": "2026-03-31T09:00:00+02:00",
        "timezone": "Europe/Prague",
        "working_hours": [
            {"day": "friday", "start_time": "22:00", "end_time": "06:00:00"},
            {"day": "monday", "start_time": "09:00", "end_time": "17:00"},
            {"day": "thursday", "start_time": "09:00", "end_time": "17:00"},
        ],
    }
    response = await api.post(path, sent)
    assert response.status_code == 201, response.text
    shown = response.json()
    assert shown["timezone"] == "Europe/Prague"
    assert shown["start_rotations_at"] == "2026-03-26T08:00:00Z"
    assert shown["working_hours"] == [  # Sunday first, HH:MM
        {"day": "monday", "start_time": "09:00", "end_time": "17:00"},
        {"day": "thursday", "start_time": "09:00", "end_time": "17:00"},
        {"day": "friday", "start_time": "22:00", "end_time": "06:00"},
    ]
    assert (await api.get(path)).json() == shown
    listed = [
        (e["starts_at"], e["ends_at"], e["users"]) for e in (await api.get(EVENTS)).json()["events"]
    ]
    assert listed == [
        # Thursday's shift (Ann): its working hours
        ("2026-03-26T08:00:00Z", "2026-03-26T16:00:00Z", ["ann@example.com"]),
        # Friday's shift (Bob) from 09:00: Friday night until the shift ends at Saturday 09:00
        ("2026-03-27T21:00:00Z", "2026-03-28T05:00:00Z", ["bob@example.com"]),
        # Saturday's and Sunday's shifts: no working hours; Monday's shift (Ann again): 09:00
        # local is 07:00 UTC now
        ("2026-03-30T07:00:00Z", "2026-03-30T15:00:00Z", ["ann@example.com"]),
    ]
    # without a time zone, the rotation keeps its own; without working hours, always on call
    again = {k: v for k, v in sent.items() if k not in ("timezone", "working_hours")}
    kept = (await api.post(path, again)).json()
    assert kept["timezone"] == "Europe/Prague" and kept["working_hours"] == []
    starts = [e["starts_at"] for e in (await api.get(EVENTS)).json()["events"]]
    assert starts == [  # 09:00 local every day, across the clock change
        "2026-03-26T08:00:00Z",
        "2026-03-27T08:00:00Z",
        "2026-03-28T08:00:00Z",
        "2026-03-29T07:00:00Z",
        "2026-03-30T07:00:00Z",
    ]


async def test_default_calendar_is_accepted_when_it_is_true(api: Api) -> None:
    made = await api.post(ON_CALLS, {"name": "Mine", "default_calendar": False})
    assert made.status_code == 201, made.text
    assert errors(await api.patch(f"{ON_CALLS}/default", {"default_calendar": False}))[1] == [
        "default_calendar"
    ]
    renamed = await api.patch(f"{ON_CALLS}/default", {"name": "Main", "default_calendar": True})
    assert renamed.status_code == 200, renamed.text


async def test_a_bulk_put_naming_many_strangers_is_a_422(app: FastAPI, api: Api) -> None:
    """40,000 distinct addresses: more than one statement may bind (SQLite's limit is 32,766)."""
    events = [
        body(
            "2026-01-02T00:00:00Z",
            "2026-01-03T00:00:00Z",
            *(f"u{i * 40 + j}@x.io" for j in range(40)),
        )
        for i in range(1000)
    ]
    _, invalid = errors(await put(api, EVENTS, {"events": events}))
    assert invalid == [f"events[{i}].users" for i in range(1000)]
