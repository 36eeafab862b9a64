"""What the hosted API's Terraform provider sends and reads, written after its Go code
(internal/provider/resource_monitor.go, resource_heartbeat.go, ptr.go, type_nullable_int.go).

A configuration is a dict of the attributes a `resource` block sets. The provider's
request bodies are built from it as its code builds them; its state is what its
`*CopyAttrs` functions read back from a response; `plan` lists the attributes whose state
differs from the configuration, which is what `terraform plan` would show as a change.
"""

from __future__ import annotations

from typing import Any, Final

# ------------------------------------------------------------------------------ monitors

MONITOR_KEYS: Final = (
    "ssl_expiration",
    "domain_expiration",
    "policy_id",
    "expiration_policy_id",
    "url",
    "monitor_type",
    "required_keyword",
    "expected_status_codes",
    "call",
    "sms",
    "email",
    "push",
    "critical_alert",
    "team_wait",
    "paused",
    "paused_at",
    "follow_redirects",
    "port",
    "regions",
    "monitor_group_id",
    "pronounceable_name",
    "recovery_period",
    "verify_ssl",
    "check_frequency",
    "confirmation_period",
    "http_method",
    "request_timeout",
    "request_body",
    "request_headers",
    "auth_username",
    "auth_password",
    "proxy_host",
    "proxy_port",
    "ip_version",
    "maintenance_from",
    "maintenance_to",
    "maintenance_timezone",
    "maintenance_days",
    "remember_cookies",
    "last_checked_at",
    "status",
    "created_at",
    "updated_at",
    "playwright_script",
    "environment_variables",
)
"""monitorRef(): the attributes the provider sends and reads, in its order."""

MONITOR_OPTIONAL_ONLY: Final = frozenset(
    {
        "url",
        "required_keyword",
        "expected_status_codes",
        "port",
        "http_method",
        "request_body",
        "request_headers",
        "auth_username",
        "auth_password",
        "proxy_host",
        "proxy_port",
        "playwright_script",
        "scenario_name",
        "expiration_policy_id",
    }
)
"""Optional and not Computed: when the configuration leaves one out, a value read back is a
change Terraform plans (to clear it)."""
READ_ONLY: Final = frozenset({"paused_at", "last_checked_at", "status", "created_at", "updated_at"})
NULLABLE_INTS: Final = ("ssl_expiration", "domain_expiration")
"""NullableInt: -1 in Terraform is null in the API."""

# What the Go struct's field types accept when the response is decoded (json.Unmarshal fails
# on anything else, and the provider with it).
MONITOR_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "policy_id": (str,),
    "expiration_policy_id": (int,),
    "url": (str,),
    "monitor_type": (str,),
    "required_keyword": (str,),
    "expected_status_codes": (list,),
    "team_wait": (int,),
    "port": (str,),
    "regions": (list,),
    "monitor_group_id": (int,),
    "pronounceable_name": (str,),
    "recovery_period": (int,),
    "check_frequency": (int,),
    "confirmation_period": (int,),
    "http_method": (str,),
    "request_timeout": (int,),
    "request_body": (str,),
    "request_headers": (list,),
    "auth_username": (str,),
    "proxy_host": (str,),
    "proxy_port": (int,),
    "ip_version": (str,),
    "maintenance_from": (str,),
    "maintenance_to": (str,),
    "maintenance_timezone": (str,),
    "maintenance_days": (list,),
    "playwright_script": (str,),
    "scenario_name": (str,),
    "environment_variables": (dict,),
    "team_name": (str,),
    "ssl_expiration": (int,),
    "domain_expiration": (int,),
    **{name: (bool,) for name in ("call", "sms", "email", "push", "critical_alert")},
    **{name: (bool,) for name in ("paused", "follow_redirects", "verify_ssl", "remember_cookies")},
}


def decodable(attributes: dict[str, Any], types: dict[str, tuple[type, ...]]) -> list[str]:
    """The attributes Go's json.Unmarshal would refuse for the provider's struct."""
    wrong = [
        name
        for name, allowed in types.items()
        if attributes.get(name) is not None
        and (
            not isinstance(attributes[name], allowed)
            or (bool not in allowed and isinstance(attributes[name], bool))
        )
    ]
    headers = attributes.get("request_headers") or []
    if any(not all(isinstance(v, str) for v in h.values()) for h in headers):
        wrong.append("request_headers")  # TypeList of TypeMap of TypeString
    variables = attributes.get("environment_variables") or {}
    if not all(isinstance(v, str) for v in variables.values()):
        wrong.append("environment_variables")
    return wrong


def _headers_to_send(
    config: list[dict[str, str]] | None, old: list[dict[str, str]]
) -> list[dict[str, str]] | None:
    """loadRequestHeaders(): the new list, ids carried over from the old state's headers of
    the same name and value, and a `_destroy` entry for every other old header."""
    sent: list[dict[str, str]] | None = None
    for header in config or []:
        sent = [*(sent or []), {"name": header["name"], "value": header["value"]}]
    for header in old:
        found = next(
            (
                h
                for h in sent or []
                if (h.get("name"), h.get("value")) == (header["name"], header["value"])
            ),
            None,
        )
        if found is None or "id" in found:
            sent = [*(sent or []), {"id": header["id"], "_destroy": "true"}]
        else:
            found["id"] = header["id"]
    return sent


def monitor_create(config: dict[str, Any]) -> dict[str, Any]:
    """monitorCreate(): the POST body."""
    body: dict[str, Any] = {}
    for key in MONITOR_KEYS:
        if key == "request_headers":
            body[key] = _headers_to_send(config.get(key), [])
        elif key == "expiration_policy_id":
            body[key] = config.get(key) or None
        elif key in NULLABLE_INTS:
            if config.get(key):
                body[key] = None if config[key] == -1 else config[key]
        elif key == "url":
            body["url"] = config.get("url", "")
            if config.get("scenario_name"):
                body["scenario_name"] = config["scenario_name"]
        elif key == "http_method":
            body[key] = config.get(key, "GET")  # Default: "GET"
        elif key in config:
            body[key] = config[key]
    if "team_name" in config:
        body["team_name"] = config["team_name"]
    return body


def monitor_state(attributes: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """monitorCopyAttrs(): the state read from a response's attributes."""
    state: dict[str, Any] = {}
    for key in MONITOR_KEYS:
        value = attributes.get(key)
        if key in NULLABLE_INTS:
            state[key] = -1 if value is None else value
        elif key == "url":
            if config.get("scenario_name"):
                state["scenario_name"] = attributes["scenario_name"]  # *in.ScenarioName
            if config.get("url") or not config.get("scenario_name"):
                state["url"] = attributes["url"]  # *in.URL
        else:
            state[key] = value
    return state


def monitor_update(
    old: dict[str, Any], new: dict[str, Any], state: dict[str, Any]
) -> dict[str, Any]:
    """monitorUpdate(): the PATCH body for a change of configuration from old to new."""
    planned = {**state, **new}
    for key in MONITOR_OPTIONAL_ONLY - set(new):
        planned[key] = None
    body: dict[str, Any] = {}
    for key in MONITOR_KEYS:
        if key == "expiration_policy_id":
            body[key] = new.get(key) or None
        elif key == "url":
            if new.get("url", "") != old.get("url", ""):
                body["url"] = new.get("url", "")
            if new.get("scenario_name") and new.get("scenario_name") != old.get("scenario_name"):
                body["scenario_name"] = new["scenario_name"]
        elif key in READ_ONLY:
            continue
        elif not _same(key, state.get(key), planned.get(key)):
            if key == "request_headers":
                body[key] = _headers_to_send(new.get(key), state.get(key) or [])
            elif key in NULLABLE_INTS:
                if new.get(key):
                    body[key] = None if new[key] == -1 else new[key]
            elif key in new:
                body[key] = new[key]
            elif key == "http_method":
                body[key] = "GET"
            else:
                body[key] = _zero(state.get(key))
    return body


def _zero(value: Any) -> Any:
    """What the SDK loads for an attribute removed from the configuration."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0
    if isinstance(value, list):
        return []
    if isinstance(value, dict):
        return {}
    return ""


def _same(key: str, state: Any, config: Any) -> bool:
    """Whether Terraform sees no change (DiffSuppressFuncs and zero values included)."""
    if key == "http_method":
        return str(state or "").lower() == str(config or "GET").lower()
    if key == "pronounceable_name" and not config:
        return True
    if key == "request_headers":
        return [(h["name"], h["value"]) for h in state or []] == [
            (h["name"], h["value"]) for h in config or []
        ]
    if key == "expiration_policy_id":
        return (state or 0) == (config or 0)
    if _blank(config) or _blank(state):
        return _blank(config) and _blank(state)
    return bool(state == config)


def _blank(value: Any) -> bool:
    """A value Terraform holds as its zero (null and empty read back alike)."""
    return value is None or (isinstance(value, str | list | dict) and not value)


def monitor_plan(config: dict[str, Any], state: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """What `terraform plan` shows for the configuration: {attribute: (state, config)}."""
    changes: dict[str, tuple[Any, Any]] = {}
    for key in (*MONITOR_KEYS, "scenario_name"):
        if key in READ_ONLY or key not in state:
            continue
        if key in config:
            if not _same(key, state[key], config[key]):
                changes[key] = (state[key], config[key])
        elif key in MONITOR_OPTIONAL_ONLY and not _same(key, state[key], None):
            if key == "http_method" and _same(key, state[key], "GET"):
                continue
            changes[key] = (state[key], None)
    return changes


# ---------------------------------------------------------------------------- heartbeats

HEARTBEAT_KEYS: Final = (
    "name",
    "url",
    "period",
    "grace",
    "server_timezone",
    "call",
    "sms",
    "email",
    "push",
    "critical_alert",
    "team_wait",
    "heartbeat_group_id",
    "sort_index",
    "maintenance_from",
    "maintenance_to",
    "maintenance_timezone",
    "maintenance_days",
    "paused",
    "paused_at",
    "policy_id",
    "status",
    "created_at",
    "updated_at",
)
"""heartbeatRef(), in its order."""
HEARTBEAT_OPTIONAL_ONLY: Final = frozenset({"server_timezone", "policy_id"})
HEARTBEAT_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "name": (str,),
    "url": (str,),
    "period": (int,),
    "grace": (int,),
    "server_timezone": (str,),
    "team_wait": (int,),
    "heartbeat_group_id": (int,),
    "sort_index": (int,),
    "maintenance_from": (str,),
    "maintenance_to": (str,),
    "maintenance_timezone": (str,),
    "maintenance_days": (list,),
    "policy_id": (str,),
    "team_name": (str,),
    **{name: (bool,) for name in ("call", "sms", "email", "push", "critical_alert", "paused")},
}


def heartbeat_create(config: dict[str, Any]) -> dict[str, Any]:
    """heartbeatCreate(): every attribute the configuration sets (and team_name)."""
    body: dict[str, Any] = {key: config[key] for key in HEARTBEAT_KEYS if key in config}
    if "team_name" in config:
        body["team_name"] = config["team_name"]
    return body


def heartbeat_state(attributes: dict[str, Any]) -> dict[str, Any]:
    """heartbeatCopyAttrs()."""
    return {key: attributes.get(key) for key in HEARTBEAT_KEYS}


def heartbeat_update(new: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """heartbeatUpdate(): the changed attributes; a removed string is sent as ""."""
    body: dict[str, Any] = {}
    for key in HEARTBEAT_KEYS:
        if key in new and state.get(key) != new[key]:
            body[key] = new[key]
        elif key not in new and key in HEARTBEAT_OPTIONAL_ONLY and state.get(key):
            body[key] = ""
    return body


def heartbeat_plan(config: dict[str, Any], state: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    changes: dict[str, tuple[Any, Any]] = {}
    for key in HEARTBEAT_KEYS:
        if key in config and state.get(key) != config[key]:
            changes[key] = (state.get(key), config[key])
        elif key not in config and key in HEARTBEAT_OPTIONAL_ONLY and state.get(key):
            changes[key] = (state.get(key), None)
    return changes
