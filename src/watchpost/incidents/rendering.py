"""Incidents as the API shows them: one comprehension over plain rows for lists, the same
for one incident, and the payload of an incident's delivery events."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from watchpost.db.rows import ListColumns
from watchpost.incidents.check_details import shown
from watchpost.incidents.models import Incident

INCIDENT: Final = "incident"

INCIDENT_COLUMNS = ListColumns(
    Incident,
    (
        "id",
        "name",
        "cause",
        "started_at",
        "acknowledged_at",
        "acknowledged_by",
        "resolved_at",
        "resolved_by",
        "monitor_id",
        "heartbeat_id",
        "collector_target_id",
        "manual",
        "metadata_",
        "call",
        "sms",
        "email",
        "push",
        "critical_alert",
        "policy_id",
        "check_details",
        "created_at",
        "updated_at",
    ),
)


def incident_resources(rows: Iterable[Sequence[Any]], *, team_name: str) -> list[dict[str, Any]]:
    """Incidents as API resources, from rows of INCIDENT_COLUMNS.

    One comprehension that unpacks each row: 250 rows a page, so every call and attribute
    lookup per row shows in the page's cost. The status is Incident.status's rule.
    """
    return [
        {
            "id": str(id_),
            "type": INCIDENT,
            "attributes": {
                "name": name,
                "cause": cause,
                "status": "resolved"
                if resolved_at is not None
                else "acknowledged"
                if acknowledged_at is not None
                else "started",
                "started_at": started_at,
                "acknowledged_at": acknowledged_at,
                "acknowledged_by": acknowledged_by,
                "resolved_at": resolved_at,
                "resolved_by": resolved_by,
                "monitor_id": monitor_id,
                "heartbeat_id": heartbeat_id,
                "collector_target_id": collector_target_id,
                "manual": manual,
                "metadata": metadata,
                "call": call,
                "sms": sms,
                "email": email,
                "push": push,
                "critical_alert": critical_alert,
                "escalation_policy_id": policy_id,
                **shown(check_details),
                "team_name": team_name,
                "created_at": created_at,
                "updated_at": updated_at,
            },
        }
        for (
            id_,
            name,
            cause,
            started_at,
            acknowledged_at,
            acknowledged_by,
            resolved_at,
            resolved_by,
            monitor_id,
            heartbeat_id,
            collector_target_id,
            manual,
            metadata,
            call,
            sms,
            email,
            push,
            critical_alert,
            policy_id,
            check_details,
            created_at,
            updated_at,
        ) in rows
    ]


def incident_resource(incident: Incident, team_name: str) -> dict[str, Any]:
    return incident_resources([INCIDENT_COLUMNS.row(incident)], team_name=team_name)[0]


SUBJECTS: Final = (
    ("monitor_id", "monitor"),
    ("heartbeat_id", "heartbeat"),
    ("collector_target_id", "collector_target"),
    ("incoming_webhook_id", "incoming_webhook"),
)
"""The column naming what an incident is about, and that object's API type."""


def incident_payload(incident: Incident, team_name: str) -> dict[str, Any]:
    """The incident as the API shows it, with `relationships` naming the object it is about
    (what webhook receivers of incident events get as `data`)."""
    data = incident_resource(incident, team_name)
    data["relationships"] = {
        kind: {"data": {"id": str(getattr(incident, column)), "type": kind}}
        for column, kind in SUBJECTS
        if getattr(incident, column) is not None
    }
    return data
