"""Metadata of an incident as it opens: its object's records are copied onto it.

When an incident about a monitor, heartbeat or incoming webhook opens, that object's records become the
incident's (records with owner_type `Incident`, same keys and typed values), like the other
alert settings it takes from its object; the `metadata` the incident was opened with (an
incident reported through the API) wins for its keys and becomes String records. The
incident's `metadata` dict holds each record's values as strings (values.incident_text).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.metadata.models import MetadataRecord
from watchpost.metadata.values import MAX_VALUES, incident_text


class OpenedIncident(Protocol):
    """An incident as the incidents package passes it (not imported: it imports this)."""

    id: int
    team_id: int


Records = dict[str, list[dict[str, Any]]]
"""Key → stored values."""


async def opening(
    session: AsyncSession,
    *,
    team_id: int,
    monitor_id: int | None,
    heartbeat_id: int | None,
    incoming_webhook_id: int | None = None,
    given: dict[str, Any] | None,
) -> tuple[dict[str, Any], Records]:
    """The new incident's `metadata` dict and the records it gets."""
    records: Records = {}
    owner = next(
        (
            (owner_type, owner_id)
            for owner_type, owner_id in (
                ("Monitor", monitor_id),
                ("Heartbeat", heartbeat_id),
                ("IncomingWebhook", incoming_webhook_id),
            )
            if owner_id is not None
        ),
        None,
    )
    if owner is not None:
        rows = await session.execute(
            select(MetadataRecord.key, MetadataRecord.values)
            .where(
                MetadataRecord.team_id == team_id,
                MetadataRecord.owner_type == owner[0],
                MetadataRecord.owner_id == owner[1],
            )
            .order_by(MetadataRecord.id)
        )
        records = {key: list(values) for key, values in rows}
    metadata: dict[str, Any] = {
        key: [incident_text(value) for value in values] for key, values in records.items()
    }
    for key, texts in (given or {}).items():
        metadata[key] = texts
        records[key] = [
            {"type": "String", "value": str(text)}
            for text in (texts if isinstance(texts, list) else [texts])[:MAX_VALUES]
            if str(text).strip()
        ]
    return metadata, {key: values for key, values in records.items() if values}


async def opened(
    session: AsyncSession, incident: OpenedIncident, records: Records, at: datetime
) -> None:
    """The opened incident's records written (after its row has an id)."""
    if not records:
        return
    await session.flush()
    session.add_all(
        MetadataRecord(
            team_id=incident.team_id,
            owner_type="Incident",
            owner_id=incident.id,
            key=key[:255],
            values=values,
            created_at=at,
            updated_at=at,
        )
        for key, values in records.items()
    )
    await session.flush()
