"""The hosted API's own Python client (betterstack-uptime) against Watchpost: its `Incident`
(/api/v3/incidents) unchanged: list with filters, get, acknowledge, resolve, delete."""

from __future__ import annotations

import asyncio

from betterstack.uptime import BearerAuth, PaginatedAPI
from betterstack.uptime.objects import Incident
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.incidents import create_reported_incident
from tests.factories.monitors import create_monitor
from tests.factories.served import serving


def _client(base: str, api: Api) -> PaginatedAPI:
    """What UptimeAPI is, with Watchpost's base URL instead of the hosted one."""
    return PaginatedAPI(f"{base}/api/v2/", BearerAuth(api.token), retries=0)


async def test_the_python_clients_incidents_work_unchanged(app: FastAPI, api: Api) -> None:
    monitor = await create_monitor(api)
    first = await create_reported_incident(api, email=False, monitor_id=int(monitor["id"]))
    second = await create_reported_incident(api, email=False, name="Queue backlog")
    async with serving(app) as base:
        client = _client(base, api)

        def work() -> None:
            listed = list(Incident.get_all_instances(client))
            assert [i.id for i in listed] == [first["id"], second["id"]]
            assert listed[0].name == "Checkout slow" and listed[0].monitor_id == int(monitor["id"])
            mine = list(Incident.filter(client, monitor_id=int(monitor["id"])))
            assert [i.id for i in mine] == [first["id"]]
            incident = mine[0]
            assert not incident.is_acknowledged and not incident.is_resolved
            incident.acknowledge("ann@example.com")
            assert incident.is_acknowledged and incident.acknowledged_by == "ann@example.com"
            incident.resolve()
            assert incident.is_resolved and incident.resolved_by == api.team_name
            open_ones = list(Incident.filter(client, resolved="false"))
            assert [i.id for i in open_ones] == [second["id"]]
            fetched = Incident(id=second["id"], _api=client)
            fetched.fetch_data()
            assert fetched.name == "Queue backlog" and fetched.status == "started"
            fetched.delete()

        await asyncio.to_thread(work)
    assert (await api.get(f"/api/v3/incidents/{second['id']}")).status_code == 404
    assert (await api.get(f"/api/v2/incidents/{first['id']}")).json()["data"]["attributes"][
        "status"
    ] == "resolved"
