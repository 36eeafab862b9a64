"""Heartbeats for the ping and sweep tests: create one through the API, read its row and incidents."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api, data
from watchpost.context import AppContext
from watchpost.heartbeats.models import Heartbeat
from watchpost.incidents.models import Incident, IncidentEvent
from watchpost.incidents.service import timeline

PING = "/api/v1/heartbeat"


@dataclass(frozen=True)
class CreatedHeartbeat:
    id: int
    token: str

    @property
    def url(self) -> str:
        return f"{PING}/{self.token}"


async def create_heartbeat(api: Api, **attributes: Any) -> CreatedHeartbeat:
    body = {"name": "nightly backup", "period": 300, "grace": 60, **attributes}
    created = data(await api.post("/api/v2/heartbeats", body), 201)
    return CreatedHeartbeat(int(created["id"]), created["attributes"]["url"].rsplit("/", 1)[1])


async def row(app: FastAPI, heartbeat_id: int) -> Heartbeat:
    ctx: AppContext = app.state.ctx
    async with ctx.db.read_sessions() as session:
        found = await session.scalar(select(Heartbeat).where(Heartbeat.id == heartbeat_id))
    assert found is not None
    return found


async def incidents(app: FastAPI, heartbeat_id: int) -> Sequence[Incident]:
    ctx: AppContext = app.state.ctx
    async with ctx.db.read_sessions() as session:
        found = await session.scalars(
            select(Incident).where(Incident.heartbeat_id == heartbeat_id).order_by(Incident.id)
        )
        return found.all()


async def events(app: FastAPI, incident: Incident) -> Sequence[IncidentEvent]:
    ctx: AppContext = app.state.ctx
    async with ctx.db.read_sessions() as session:
        return await timeline(session, incident=incident)
