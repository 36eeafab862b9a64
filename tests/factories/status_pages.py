"""Minimal rows of the item types status page resources point at, built through their models."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

_UNUSED = {f"{stage}_rule_type": "unused" for stage in ("started", "acknowledged", "resolved")}
_FIELDS: dict[str, dict[str, Any]] = {
    "Monitor": {
        "monitor_type": "status",
        "url": "https://example.com",
        "pronounceable_name": "Example site",
        "check_frequency": 180,
        "confirmation_period": 0,
        "recovery_period": 180,
        "request_timeout": 30,
    },
    "MonitorGroup": {"name": "Group"},
    "ResourceGroup": {"name": "Group"},
    "Heartbeat": {"name": "Nightly backup", "period": 86400, "grace": 3600},
    "HeartbeatGroup": {"name": "Jobs"},
    "WebhookIntegration": {
        "name": "Hook",
        "url": "https://example.com/hook",
        "trigger_type": "incident_change",
    },
    "IncomingWebhook": {"name": "Alerts", **_UNUSED},
    "EmailIntegration": {"name": "Mail", **_UNUSED},
}


def build_item(resource_type: str, model: Any, *, team_id: int, now: datetime) -> Any:
    fields = dict(_FIELDS[resource_type])
    if resource_type in ("Heartbeat", "IncomingWebhook"):
        fields["token"] = secrets.token_hex(16)
    return model(team_id=team_id, created_at=now, updated_at=now, **fields)
