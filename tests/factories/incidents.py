"""Incidents: reported through the API, or opened as the check engine does (through
incidents.transitions)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from tests.factories.api import Api, data
from watchpost.context import AppContext
from watchpost.incidents import transitions

URL = "/api/v2/incidents"


async def create_monitor_id(api: Api, url: str = "https://example.com") -> int:
    return int(data(await api.post("/api/v2/monitors", {"url": url}), 201)["id"])


async def create_heartbeat_id(api: Api, name: str = "backup") -> int:
    return int(data(await api.post("/api/v2/heartbeats", {"name": name}), 201)["id"])


async def create_engine_incident(app: FastAPI, api: Api, **fields: Any) -> str:
    """An incident opened as the check engine does (not manual), at the clock's now; its id."""
    ctx: AppContext = app.state.ctx
    fields.setdefault("name", "example.com")
    fields.setdefault("cause", "Status 500")
    async with ctx.db.write_sessions() as session, session.begin():
        incident = await transitions.start(
            session, team_id=api.team_id, at=ctx.clock.now(), **fields
        )
    return str(incident.id)


async def create_reported_incident(api: Api, **body: Any) -> dict[str, Any]:
    """A manually reported incident, through the API."""
    body = {"name": "Checkout slow", "summary": "Customers report timeouts", **body}
    return data(await api.post(URL, body), 201)


async def ids(api: Api, query: str = "") -> list[str]:
    body = (await api.get(f"{URL}?{query}")).json()
    assert "data" in body, body
    return [item["id"] for item in body["data"]]
