"""Which fields each form shows, read from the domain's tables: a monitor type's fields from
TYPE_RULES (monitors/types.py), a target kind's from KIND_RULES (collectors/target_kinds.py),
the common fields from the request models themselves. Only the words (labels, sections) are
the console's; which fields exist, their kinds, bounds and defaults are the domain's.

Left out of every form: `team_name` (the console always acts for the signed-in team),
`scenario_name` (the API's alias of a playwright monitor's url) and `paused` (pausing is an
action with its own buttons on the object's page, not an edit).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from watchpost.collectors.schemas import TargetCreate
from watchpost.collectors.target_kinds import KIND_RULES
from watchpost.collectors.target_kinds import WRITE_ONLY_FIELDS as TARGET_SECRETS
from watchpost.console.forms import Field, field_of
from watchpost.groups.group_kinds import GroupKind
from watchpost.groups.schemas import TEAM_NAME, schemas_of
from watchpost.heartbeats.schemas import HEARTBEAT_DEFAULTS, HeartbeatFields
from watchpost.maintenance_windows import MaintenanceFields
from watchpost.monitors.schemas import COMMON_DEFAULTS, MonitorFields
from watchpost.monitors.types import (
    HTTP_METHODS,
    TYPE_FIELDS,
    TYPE_RULES,
    WRITE_ONLY_FIELDS,
    defaults_of,
)
from watchpost.notification_fields import NotificationFields

Choices = Sequence[tuple[str, str]]
HIDDEN: Final = frozenset({"team_name", "scenario_name", "paused"})

LABELS: Final[dict[str, str]] = {
    "pronounceable_name": "Name",
    "monitor_group_id": "Monitor group",
    "heartbeat_group_id": "Heartbeat group",
    "required_keyword": "Keyword",
    "http_method": "HTTP method",
    "request_headers": "Request headers",
    "expected_status_codes": "Expected status codes",
    "verify_ssl": "Verify the TLS certificate",
    "auth_username": "Username (HTTP basic auth)",
    "auth_password": "Password (HTTP basic auth)",
    "check_frequency": "Check frequency (seconds)",
    "confirmation_period": "Confirmation period (seconds)",
    "recovery_period": "Recovery period (seconds)",
    "ssl_expiration": "Alert before the TLS certificate expires (days)",
    "domain_expiration": "Alert before the domain expires (days)",
    "maintenance_from": "Maintenance starts at",
    "maintenance_to": "Maintenance ends at",
    "maintenance_timezone": "Maintenance time zone",
    "maintenance_days": "Maintenance days",
    "call": "Alert by phone call",
    "sms": "Alert by SMS",
    "email": "Alert by e-mail",
    "push": "Alert by push notification",
    "team_wait": "Wait before alerting the whole team (seconds)",
    "policy_id": "Escalation policy",
    "expiration_policy_id": "Escalation policy for expirations",
    "ip_version": "IP version",
    "period": "Period (seconds)",
    "grace": "Grace (seconds)",
    "sort_index": "Position",
    "server_timezone": "Time zone of the schedule",
    "listen_ip": "Listen IP",
    "ssl_mode": "SSL mode",
    "tls": "TLS",
    "api_key": "API key",
    "regions": "Regions",
    "locations": "Locations",
    "confirmation_rule": "Down when",
    "confirmation_locations": "Failing locations (for “at least”)",
}
STORED = "Kept with the object; checks do not use it."
HINTS: Final[dict[str, str]] = {
    # The models' descriptions speak to API clients (null, Terraform); these to people.
    "proxy_host": STORED,
    "proxy_port": STORED,
    "ip_version": STORED,
    "critical_alert": STORED,
    "expiration_policy_id": "",
    "ssl_expiration": "None: no alert.",
    "domain_expiration": "None: no alert.",
    "regions": "The shared locations in these regions check it.",
    "locations": "These check it too, besides the regions' shared locations; your team's "
    "own locations check only the monitors that name them. With no location at all, this "
    "server checks it.",
    "confirmation_rule": "How many failing locations make it down (offline locations are not "
    "counted); fewer make it Degraded.",
    "confirmation_locations": "How many, with “at least”; leave it empty otherwise.",
}
RULE_CHOICES: Final = (
    ("any", "Any location fails"),
    ("majority", "Most locations fail"),
    ("all", "Every location fails"),
    ("at_least", "At least this many locations fail"),
)
LOCATION_FIELDS: Final = ("regions", "locations", "confirmation_rule", "confirmation_locations")
URL_LABELS: Final = {"http": "URL", "host": "Host", "name": "Scenario name"}
URL_HINTS: Final = {
    "http": "An absolute http:// or https:// URL.",
    "host": "A host name or an IP address (no scheme, no path).",
    "name": "The scenario's name.",
}
SECTIONS: Final = (
    "Check",
    "Heartbeat",
    "Target",
    "Group",
    "Settings",
    "Locations",
    "Alerts",
    "Maintenance window",
)
TEXTAREA_HINTS: Final = {
    "headers": 'One per line, "Name: value".',
    "pairs": 'One per line, "NAME=value".',
    "list": "Separated by commas.",
}


def _field(model: type[BaseModel], name: str, **options: Any) -> Field:
    label = options.pop("label", None) or LABELS.get(name)
    if name in HINTS and "hint" not in options:
        options["hint"] = HINTS[name]
    field = field_of(model, name, label=label, **options)
    extra = TEXTAREA_HINTS.get(field.input)
    if extra and extra not in field.hint:
        return Field(**{**field.__dict__, "hint": f"{field.hint} {extra}".strip()})
    return field


def _section(name: str, first: str) -> str:
    if name in LOCATION_FIELDS:
        return "Locations"
    if name in MaintenanceFields.model_fields:
        return "Maintenance window"
    if name in NotificationFields.model_fields or name == "expiration_policy_id":
        return "Alerts"
    return first


def model_defaults(model: type[BaseModel]) -> dict[str, Any]:
    """The model's own defaults (what a create body leaves out becomes)."""
    return {
        name: info.default
        for name, info in model.model_fields.items()
        if info.default is not PydanticUndefined and info.default is not None
    }


def _references(name: str, refs: Mapping[str, Choices]) -> dict[str, Any]:
    return {"choices": refs[name]} if name in refs else {}


# ---------------------------------------------------------------------------- monitors


def monitor_fields(monitor_type: str, refs: Mapping[str, Choices]) -> list[Field]:
    """The type's fields (TYPE_RULES), then every field common to all types.

    `refs` gives the choices of reference fields (monitor_group_id, policy_id …): the team's
    groups and policies; `locations`' are the locations the team may name, shown as
    checkboxes (whatever refs holds, so that a posted form reads every box ticked)."""
    rule = TYPE_RULES[monitor_type]
    timeout = rule.timeout
    fields = [
        _field(
            MonitorFields,
            "url",
            label=URL_LABELS[rule.url],
            required=True,
            section="Check",
            hint=URL_HINTS[rule.url],
        )
    ]
    for name in (*rule.required, *rule.optional):
        if name == "http_method" and rule.url != "http":
            continue  # accepted by every type for the Terraform provider; only HTTP uses it
        options: dict[str, Any] = {"required": name in rule.required, "section": "Check"}
        if name in WRITE_ONLY_FIELDS:
            options.update(secret=True, hint="")  # the form says whether one is stored
        if name == "http_method":
            options["choices"] = [(method, method.upper()) for method in HTTP_METHODS]
        if name == "port" and rule.ports:
            options["hint"] = "One of " + ", ".join(map(str, rule.ports)) + ", or several."
        fields.append(_field(MonitorFields, name, **options))
    skip = {*TYPE_FIELDS, *HIDDEN, "monitor_type", "url"}
    common = [name for name in MonitorFields.model_fields if name not in skip]
    for name in sorted(common, key=lambda n: SECTIONS.index(_section(n, "Settings"))):
        options = {"section": _section(name, "Settings"), **_references(name, refs)}
        if name == "request_timeout":
            options["hint"] = (
                f"{timeout.low} to {timeout.high} {timeout.unit} for {monitor_type} monitors."
            )
            options["label"] = f"Request timeout ({timeout.unit})"
        if name == "confirmation_rule":
            options.update(choices=RULE_CHOICES, required=True)
        field = _field(MonitorFields, name, **options)
        if name == "locations":
            field = replace(
                field, input="choices", choices=tuple(refs.get(name, ())), hint=HINTS[name]
            )
        fields.append(field)
    return fields


def monitor_defaults(monitor_type: str) -> dict[str, Any]:
    return {**COMMON_DEFAULTS, **defaults_of(monitor_type), "monitor_type": monitor_type}


def switched(values: Mapping[str, Any], old_type: str, new_type: str) -> dict[str, Any]:
    """A monitor's values shown for another type: what held the old type's default shows the
    new type's (as the API stores it), and a field with no value its default."""
    new, shown = monitor_defaults(new_type), dict(values)
    for name, default in defaults_of(old_type).items():
        if shown.get(name) == default:
            shown[name] = new.get(name)
    shown.update({name: value for name, value in new.items() if shown.get(name) is None})
    return shown


def cleared_type_fields(monitor_type: str) -> list[str]:
    """Fields a monitor changing to this type no longer takes: the form sends them as null
    (the API asks for exactly that) since the new type's form does not show them."""
    return [name for name in TYPE_FIELDS if name not in TYPE_RULES[monitor_type].accepted]


# -------------------------------------------------------------------------- heartbeats


def heartbeat_fields(refs: Mapping[str, Choices]) -> list[Field]:
    names = [name for name in HeartbeatFields.model_fields if name not in HIDDEN]
    ordered = sorted(names, key=lambda n: SECTIONS.index(_section(n, "Heartbeat")))
    return [
        _field(
            HeartbeatFields,
            name,
            required=name == "name",
            section=_section(name, "Heartbeat"),
            **_references(name, refs),
        )
        for name in ordered
    ]


def heartbeat_defaults() -> dict[str, Any]:
    return dict(HEARTBEAT_DEFAULTS)


# ------------------------------------------------------------------- collector targets


def target_fields(kind: str) -> list[Field]:
    """host, the kind's fields (KIND_RULES), enabled."""
    rule = KIND_RULES[kind]
    names = ("host", *rule.required, *rule.optional, "enabled")
    return [
        _field(
            TargetCreate,
            name,
            required=name == "host" or name in rule.required,
            secret=name in TARGET_SECRETS,
            section="Target",
            **({"hint": ""} if name in TARGET_SECRETS else {}),
        )
        for name in names
    ]


def target_defaults(kind: str) -> dict[str, Any]:
    return {**model_defaults(TargetCreate), **KIND_RULES[kind].defaults, "kind": kind}


# ------------------------------------------------------------------------------ groups


def group_fields(kind: GroupKind) -> list[Field]:
    model = schemas_of(kind).create
    names = [name for name in model.model_fields if name not in HIDDEN and name != TEAM_NAME]
    return [_field(model, name, required=name == "name", section="Group") for name in names]


def group_defaults(kind: GroupKind) -> dict[str, Any]:
    return model_defaults(schemas_of(kind).create)
