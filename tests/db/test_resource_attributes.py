"""Monitors' and heartbeats' attributes are declared once (db.rows.ResourceAttributes): the
list, the single read and the OpenAPI name the same attributes in the same order."""

from __future__ import annotations

import httpx
import pytest
from pydantic import BaseModel

from tests.factories.api import Api, data
from tests.factories.heartbeats import create_heartbeat
from tests.factories.monitors import MONITORS, create_monitor
from watchpost.db.rows import ResourceAttributes
from watchpost.heartbeats.lists import HEARTBEAT_ATTRIBUTES
from watchpost.heartbeats.schemas import HeartbeatAttributes
from watchpost.monitors.lists import MONITOR_ATTRIBUTES
from watchpost.monitors.schemas import MonitorAttributes

HEARTBEATS = "/api/v2/heartbeats"


@pytest.mark.parametrize(
    ("table", "model"),
    [(MONITOR_ATTRIBUTES, MonitorAttributes), (HEARTBEAT_ATTRIBUTES, HeartbeatAttributes)],
)
async def test_the_openapi_model_names_the_table(
    client: httpx.AsyncClient, table: ResourceAttributes, model: type[BaseModel]
) -> None:
    assert tuple(model.model_fields) == table.names
    spec = (await client.get("/openapi.json")).json()
    assert tuple(spec["components"]["schemas"][model.__name__]["properties"]) == table.names


async def _created(api: Api, path: str) -> str:
    if path == MONITORS:
        return str((await create_monitor(api))["id"])
    return str((await create_heartbeat(api)).id)


@pytest.mark.parametrize(
    ("path", "table"), [(MONITORS, MONITOR_ATTRIBUTES), (HEARTBEATS, HEARTBEAT_ATTRIBUTES)]
)
async def test_one_read_alone_and_listed_has_the_table_attributes(
    api: Api, path: str, table: ResourceAttributes
) -> None:
    one = data(await api.get(f"{path}/{await _created(api, path)}"))
    listed = (await api.get(path)).json()["data"]
    assert listed == [one]
    assert tuple(one["attributes"]) == table.names
    assert one["type"] == table.kind


def test_the_select_reads_the_id_and_every_column_the_attributes_name() -> None:
    columns = MONITOR_ATTRIBUTES.columns.names
    assert columns[0] == "id"
    assert {"port", "port_list", "degraded_since", "url", "monitor_type"} <= set(columns)
    assert len(set(columns)) == len(columns)
    assert "team_name" not in columns
    assert "token" in HEARTBEAT_ATTRIBUTES.columns.names
