"""What each status page resource_type points at and which widgets it can show.

RESOURCE_KINDS is the single source of these rules: request validation, the OpenAPI
description of the create endpoint and the tests all read it. The models of the groups come
from the table of group kinds (groups/group_kinds.py), which also says what their members are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from watchpost.groups.group_kinds import HEARTBEAT_GROUPS, MONITOR_GROUPS, SHOWN_GROUPS
from watchpost.heartbeats.models import Heartbeat
from watchpost.incoming.models import EmailIntegration, IncomingWebhook
from watchpost.monitors.models import Monitor
from watchpost.webhooks.models import OutgoingWebhook

ResourceType = Literal[
    "ManuallyTrackedItem",
    "Monitor",
    "MonitorGroup",
    "Heartbeat",
    "HeartbeatGroup",
    "WebhookIntegration",
    "EmailIntegration",
    "IncomingWebhook",
    "ResourceGroup",
    "LogsChart",
    "CatalogReference",
]
WidgetType = Literal["plain", "history", "intraday_history", "response_times", "chart_only"]
MarkFor = Literal["any_incident", "no_incident", "incident_matching_metadata"]

RESOURCE_TYPES: Final[tuple[str, ...]] = get_args(ResourceType)
WIDGET_TYPES: Final[tuple[str, ...]] = get_args(WidgetType)
MANUAL: Final = "ManuallyTrackedItem"
MATCHING: Final = "incident_matching_metadata"

DEFAULT_WIDGET: Final = "history"
DEFAULT_MARK_AS_DOWN_FOR: Final = "any_incident"
DEFAULT_MARK_AS_DEGRADED_FOR: Final = "no_incident"
# `history` in responses is true exactly for these widgets.
HISTORY_WIDGETS: Final[frozenset[str]] = frozenset({"history", "intraday_history"})
MANUAL_DEFAULT_NAME: Final = "Manually tracked item"


@dataclass(frozen=True)
class ResourceKind:
    model: type[Any] | None
    """The ORM model holding the items; None: nothing to point at."""
    widgets: tuple[str, ...]
    name_attrs: tuple[str, ...] = ()
    """Attributes of the item tried in order for the default public name."""
    supported: bool = True
    """False: Watchpost does not hold items of this type yet."""


_STATUS = ("plain", "history", "intraday_history")

RESOURCE_KINDS: Final[dict[str, ResourceKind]] = {
    "ManuallyTrackedItem": ResourceKind(model=None, widgets=_STATUS),
    "Monitor": ResourceKind(
        model=Monitor,
        widgets=(*_STATUS, "response_times"),
        name_attrs=("pronounceable_name", "url"),
    ),
    "MonitorGroup": ResourceKind(model=MONITOR_GROUPS.model, widgets=_STATUS, name_attrs=("name",)),
    "Heartbeat": ResourceKind(model=Heartbeat, widgets=_STATUS, name_attrs=("name",)),
    "HeartbeatGroup": ResourceKind(
        model=HEARTBEAT_GROUPS.model, widgets=_STATUS, name_attrs=("name",)
    ),
    "WebhookIntegration": ResourceKind(
        model=OutgoingWebhook, widgets=_STATUS, name_attrs=("name",)
    ),
    "EmailIntegration": ResourceKind(model=EmailIntegration, widgets=_STATUS, name_attrs=("name",)),
    "IncomingWebhook": ResourceKind(model=IncomingWebhook, widgets=_STATUS, name_attrs=("name",)),
    "ResourceGroup": ResourceKind(
        model=MONITOR_GROUPS.model, widgets=_STATUS, name_attrs=("name",)
    ),
    "LogsChart": ResourceKind(
        model=None, widgets=(*_STATUS, "response_times", "chart_only"), supported=False
    ),
    "CatalogReference": ResourceKind(model=None, widgets=_STATUS, supported=False),
}
assert set(RESOURCE_KINDS) == set(RESOURCE_TYPES)
assert all(set(kind.widgets) <= set(WIDGET_TYPES) for kind in RESOURCE_KINDS.values())
assert all(RESOURCE_KINDS[name].model is kind.model for name, kind in SHOWN_GROUPS.items())


def model_of(resource_type: str) -> Any | None:
    """The ORM class for the type, or None when the type has none."""
    return RESOURCE_KINDS[resource_type].model


def same_items(resource_type: str) -> tuple[str, ...]:
    """The resource types naming items of the same model as resource_type (itself first):
    MonitorGroup and ResourceGroup both name a monitor group."""
    model = model_of(resource_type)
    others = (t for t, kind in RESOURCE_KINDS.items() if t != resource_type and kind.model is model)
    return (resource_type, *others) if model is not None else (resource_type,)


def is_supported(resource_type: str) -> bool:
    """Whether this server can hold resources of the type right now."""
    kind = RESOURCE_KINDS[resource_type]
    return kind.supported and (resource_type == MANUAL or model_of(resource_type) is not None)


def widget_from_history(history: bool, current: str | None = None) -> str:
    """The widget a bare `history` flag asks for; a history-type widget stays as it is."""
    if history:
        return current if current in HISTORY_WIDGETS else "history"
    return "plain"


def rules_markdown() -> str:
    """The table as Markdown, for the OpenAPI description."""
    lines = ["| resource_type | resource_id | widget types |", "|---|---|---|"]
    for name, kind in RESOURCE_KINDS.items():
        if not is_supported(name):
            target = "not supported by this server yet (422)"
        elif kind.model is None:
            target = "omit or null"
        else:
            target = f"id of a {kind.model.__name__} of your team"
        lines.append(f"| {name} | {target} | {', '.join(kind.widgets)} |")
    return "\n".join(lines)
