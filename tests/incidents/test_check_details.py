"""A monitor's incident shows what was checked when it opened (the hosted API's v3 incident
fields: url, http_method, origin_url, regions, response_options …); others show them null."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.engine import engine_of
from tests.factories.incidents import create_reported_incident
from tests.factories.servers import http_server
from watchpost.clock import FrozenClock
from watchpost.incidents import check_details

NULL_FOR_OTHERS = check_details.FIELDS


async def _only_incident(api: Api, path: str = "/api/v2/incidents") -> dict[str, Any]:
    listed = (await api.get(path)).json()["data"]
    assert len(listed) == 1
    found: dict[str, Any] = listed[0]
    return found


async def test_a_failing_monitor_opens_an_incident_naming_what_it_checked(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    async with http_server(lambda target, headers: (503, "text/plain", "busy")) as port:
        body = {
            "url": f"http://127.0.0.1:{port}/health",
            "http_method": "post",
            "regions": ["eu", "us"],
            "confirmation_period": 0,
        }
        monitor = data(await api.post("/api/v2/monitors", body), 201)
        await engine_of(app).tick(clock.now())
    incident = await _only_incident(api)
    attributes = incident["attributes"]
    assert attributes["monitor_id"] == int(monitor["id"])
    assert attributes["url"] == attributes["origin_url"] == body["url"]
    assert attributes["http_method"] == "POST"
    assert attributes["regions"] == ["eu", "us"]
    assert attributes["response_options"] == {"status_code": "503"}
    assert attributes["critical_alert"] is False
    for absent in ("response_url", "response_content", "screenshot_url", "incident_group_id"):
        assert attributes[absent] is None, absent
    # the same through /api/v3 (the Python client's path) and for one incident
    assert (await _only_incident(api, "/api/v3/incidents"))["attributes"] == attributes
    one = data(await api.get(f"/api/v3/incidents/{incident['id']}"))["attributes"]
    assert one == attributes
    # the incident keeps what was checked then, whatever the monitor becomes
    data(await api.patch(f"/api/v2/monitors/{monitor['id']}", {"url": "http://127.0.0.1:1/"}))
    assert (await _only_incident(api))["attributes"]["url"] == body["url"]


async def test_a_monitor_that_cannot_connect_keeps_url_and_regions(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    body = {"url": "http://127.0.0.1:1/", "confirmation_period": 0}
    data(await api.post("/api/v2/monitors", body), 201)
    await engine_of(app).tick(clock.now())
    attributes = (await _only_incident(api))["attributes"]
    assert attributes["url"] == "http://127.0.0.1:1/"
    assert attributes["http_method"] == "GET"
    assert attributes["regions"] == ["us", "eu", "as", "au"]  # the monitor's default
    assert attributes["response_options"] is None  # no response: no status code


async def test_reported_incidents_show_the_fields_as_null(api: Api) -> None:
    attributes = (await create_reported_incident(api))["attributes"]
    assert {name: attributes[name] for name in NULL_FOR_OTHERS} == dict.fromkeys(NULL_FOR_OTHERS)
    assert attributes["critical_alert"] is False
