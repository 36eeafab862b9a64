from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import AfterValidator, ConfigDict, Field

from watchpost.destinations import resend_problems
from watchpost.maintenance_windows import DEFAULT_TIMEZONE, MaintenanceFields, maintenance_problems
from watchpost.monitors.confirmation import (
    DEFAULT_RULE,
    MAX_LOCATIONS,
    ConfirmationRule,
    LocationName,
    rule_problems,
)
from watchpost.monitors.fields import (
    DEFAULT_CHECK_FREQUENCY,
    DEFAULT_CONFIRMATION_PERIOD,
    DEFAULT_RECOVERY_PERIOD,
    MAX_HEADERS,
    MAX_STATUS_CODES,
    CheckFrequency,
    PortText,
    RequestHeader,
    RequestHeaderIn,
    RequestTimeout,
    Seconds,
    StatusCode,
    assign_header_ids,
    check_unique,
    scenario_problems,
)
from watchpost.monitors.types import (
    DEFAULT_MONITOR_TYPE,
    LIST_FIELDS,
    REGIONS,
    TYPE_FIELDS,
    TYPE_RULES,
    WRITE_ONLY_FIELDS,
    ExpirationDays,
    HttpMethod,
    IpVersion,
    MonitorType,
    Region,
    defaults_of,
    type_problems,
)
from watchpost.notification_fields import NOTIFICATION_DEFAULTS, NotificationFields
from watchpost.problems import accepted, null_problems, validated
from watchpost.validation import ClosedModel, Id, Secret, ShortText

MAX_VARIABLES: Final = 50
EnvironmentVariables = Annotated[
    dict[
        Annotated[str, Field(min_length=1, max_length=255)], Annotated[str, Field(max_length=8192)]
    ],
    Field(max_length=MAX_VARIABLES),
]


class MonitorFields(MaintenanceFields, NotificationFields):
    """Types and formats of every monitor field; which apply is decided by TYPE_RULES."""

    model_config = ConfigDict(extra="forbid")

    monitor_type: MonitorType | None = None
    url: str | None = Field(
        default=None, max_length=2048, description="http(s) URL or host, per monitor_type."
    )
    pronounceable_name: ShortText | None = None
    monitor_group_id: Id | None = None
    required_keyword: str | None = Field(default=None, max_length=1024)
    port: PortText | None = Field(default=None, description="A port number, as a string.")
    http_method: HttpMethod | None = None
    request_body: str | None = Field(default=None, max_length=100_000)
    request_headers: Annotated[list[RequestHeaderIn], Field(max_length=MAX_HEADERS)] | None = Field(
        default=None, description="Sending the list replaces it; see the description."
    )
    expected_status_codes: (
        Annotated[
            list[StatusCode], Field(max_length=MAX_STATUS_CODES), AfterValidator(check_unique)
        ]
        | None
    ) = None
    follow_redirects: bool | None = None
    verify_ssl: bool | None = None
    remember_cookies: bool | None = None
    auth_username: ShortText | None = None
    auth_password: Secret | None = Field(default=None, description="Write-only.")
    check_frequency: CheckFrequency | None = Field(default=None, description="Seconds.")
    confirmation_period: Seconds | None = Field(default=None, description="Seconds.")
    recovery_period: Seconds | None = Field(default=None, description="Seconds.")
    request_timeout: RequestTimeout | None = Field(
        default=None, description="Seconds (HTTP types) or milliseconds (other types)."
    )
    ssl_expiration: ExpirationDays | None = Field(default=None, description="Days; null = off.")
    domain_expiration: ExpirationDays | None = Field(default=None, description="Days; null = off.")
    regions: Annotated[list[Region], Field(min_length=1), AfterValidator(check_unique)] | None = (
        None
    )
    locations: (
        Annotated[list[LocationName], Field(max_length=MAX_LOCATIONS), AfterValidator(check_unique)]
        | None
    ) = Field(default=None, description="Locations named exactly, besides `regions`' ones.")
    confirmation_rule: ConfirmationRule | None = Field(
        default=None, description="How many failing locations make the monitor down."
    )
    confirmation_locations: Annotated[int, Field(ge=1, le=MAX_LOCATIONS)] | None = Field(
        default=None, description="at_least: this many failing locations."
    )
    paused: bool | None = None
    expiration_policy_id: Id | None = Field(
        default=None, description="An escalation policy of the team; stored (see the docs)."
    )
    proxy_host: ShortText | None = Field(default=None, description="Stored.")
    proxy_port: Annotated[int, Field(ge=0, le=65535)] | None = Field(
        default=None,
        description="Stored; 0 (what the Terraform provider sends to clear it) is none.",
    )
    ip_version: IpVersion | None = Field(default=None, description="Stored.")
    playwright_script: str | None = Field(
        default=None, max_length=100_000, description="playwright monitors; stored."
    )
    environment_variables: EnvironmentVariables | None = Field(
        default=None, description="playwright monitors; stored and shown."
    )
    scenario_name: str | None = Field(
        default=None,
        max_length=2048,
        description="playwright monitors: the scenario's name, kept as the url.",
    )
    team_name: ShortText | None = Field(default=None, description="Must name the API token's team.")


class MonitorCreate(MonitorFields):
    monitor_type: MonitorType = DEFAULT_MONITOR_TYPE
    url: str = Field(max_length=2048, description="http(s) URL or host, per monitor_type.")


class MonitorUpdate(MonitorFields):
    pass


class MonitorAttributes(ClosedModel):
    monitor_type: MonitorType
    url: str
    scenario_name: str | None
    pronounceable_name: str | None
    monitor_group_id: int | None
    required_keyword: str | None
    port: str | None
    http_method: str | None
    request_body: str | None
    request_headers: list[RequestHeader]
    expected_status_codes: list[int]
    follow_redirects: bool | None
    verify_ssl: bool | None
    remember_cookies: bool | None
    auth_username: str | None
    check_frequency: int
    confirmation_period: int
    recovery_period: int
    request_timeout: int
    ssl_expiration: int | None
    domain_expiration: int | None
    regions: list[Region]
    locations: list[str]
    confirmation_rule: ConfirmationRule
    confirmation_locations: int | None
    degraded: bool
    maintenance_from: str | None
    maintenance_to: str | None
    maintenance_timezone: str
    maintenance_days: list[str]
    call: bool
    sms: bool
    email: bool
    push: bool
    team_wait: int | None
    policy_id: str | None
    critical_alert: bool
    expiration_policy_id: int | None
    proxy_host: str | None
    proxy_port: int | None
    ip_version: str | None
    playwright_script: str | None
    environment_variables: dict[str, str]
    paused: bool
    status: str
    paused_at: str | None
    last_checked_at: str | None
    last_error: str | None
    team_name: str
    created_at: str
    updated_at: str


# Fields that must not be null on PATCH (they always hold a value).
NOT_NULL: Final[tuple[str, ...]] = (
    "monitor_type",
    "url",
    "check_frequency",
    "confirmation_period",
    "recovery_period",
    "regions",
    "locations",
    "confirmation_rule",
    "paused",
    "maintenance_timezone",
    "maintenance_days",
    "call",
    "sms",
    "email",
    "push",
    "critical_alert",
)
# Fields a request may send that are not stored as sent: scenario_name is kept as the url,
# team_name must name the token's team.
NOT_STORED: Final[frozenset[str]] = frozenset({"scenario_name", "team_name"})
# Every stored field a request can set, except the write-only auth_password.
VALUE_FIELDS: Final[tuple[str, ...]] = tuple(
    name
    for name in MonitorFields.model_fields
    if name not in WRITE_ONLY_FIELDS and name not in NOT_STORED
)
COMMON_DEFAULTS: Final[dict[str, Any]] = {
    "pronounceable_name": None,
    "monitor_group_id": None,
    "check_frequency": DEFAULT_CHECK_FREQUENCY,
    "confirmation_period": DEFAULT_CONFIRMATION_PERIOD,
    "recovery_period": DEFAULT_RECOVERY_PERIOD,
    "domain_expiration": None,
    "regions": list(REGIONS),
    "locations": [],
    "confirmation_rule": DEFAULT_RULE,
    "confirmation_locations": None,
    "paused": False,
    "maintenance_from": None,
    "maintenance_to": None,
    "maintenance_timezone": DEFAULT_TIMEZONE,
    "maintenance_days": [],
    **NOTIFICATION_DEFAULTS,
    "expiration_policy_id": None,
    "proxy_host": None,
    "proxy_port": None,
    "ip_version": None,
}
assert set(VALUE_FIELDS) == {
    "monitor_type",
    "url",
    "request_timeout",
    *COMMON_DEFAULTS,
    *(name for name in TYPE_FIELDS if name not in WRITE_ONLY_FIELDS),
}


# Fields the Terraform provider clears by sending its zero value ("" or 0) when the
# configuration drops them.
ZERO_IS_NONE: Final[dict[str, object]] = {"proxy_host": "", "proxy_port": 0, "ip_version": ""}


def _blank(key: str, value: Any) -> bool:
    if key in ZERO_IS_NONE:
        return value == ZERO_IS_NONE[key] and type(value) is type(ZERO_IS_NONE[key])
    return key in TYPE_FIELDS and (
        (isinstance(value, str) and not value.strip()) or (key in LIST_FIELDS and value in ([], {}))
    )


def _blank_to_none(data: dict[str, Any]) -> dict[str, Any]:
    """A blank string in a type field means "not given"; so does an empty list, and the
    zero of a ZERO_IS_NONE field."""
    return {key: None if _blank(key, value) else value for key, value in data.items()}


def _rule_problems(monitor_type: Any, values: dict[str, Any]) -> list[tuple[str | None, str]]:
    problems = maintenance_problems(values) + rule_problems(values)
    if isinstance(monitor_type, str) and monitor_type in TYPE_RULES:
        problems += type_problems(monitor_type, values)
    return problems


def _sent_values(parsed: MonitorFields) -> dict[str, Any]:
    values = {
        name: getattr(parsed, name)
        for name in parsed.model_fields_set
        if name in VALUE_FIELDS and name != "request_headers"
    }
    if isinstance(values.get("url"), str):
        values["url"] = values["url"].strip()
    return values


def parse_monitor_create(
    data: dict[str, Any], extra: list[tuple[str | None, str]]
) -> tuple[MonitorCreate, dict[str, Any]]:
    """Validate a create request (types, formats, the type's rules; all problems at once).

    Returns the parsed request and every value to store, defaults filled in.
    """
    data = _blank_to_none(data)
    monitor_type = data.get("monitor_type", DEFAULT_MONITOR_TYPE)
    extra = scenario_problems(data, monitor_type) + extra
    parsed, problems = validated(MonitorCreate, data)
    problems += _rule_problems(monitor_type, data)
    values: dict[str, Any] = {}
    if parsed is not None:
        values = {**COMMON_DEFAULTS, **{name: None for name in TYPE_FIELDS}}
        values.update({k: v for k, v in _sent_values(parsed).items() if v is not None})
        values["monitor_type"] = parsed.monitor_type
        values.update(
            {k: v for k, v in defaults_of(parsed.monitor_type).items() if values.get(k) is None}
        )
        headers, last_id, header_problems = assign_header_ids(parsed.request_headers or [], [], 0)
        values["request_headers"], values["last_request_header_id"] = headers, last_id
        problems += header_problems
    problems += extra
    parsed = accepted(parsed, problems)
    values.pop("auth_password", None)
    return parsed, values


def parse_monitor_update(
    data: dict[str, Any], current: dict[str, Any], extra: list[tuple[str | None, str]]
) -> tuple[MonitorUpdate, dict[str, Any]]:
    """Validate a PATCH on the monitor as it would be after it, all problems at once.

    `current` holds the monitor's VALUE_FIELDS, `auth_password` ("set" or None) and
    `last_request_header_id`. Returns the parsed request and the merged values to store.
    When monitor_type changes, a field the monitor holds at the old type's default (and the
    request does not send) takes the new type's default, or none; any other value the new
    type does not accept must be sent as null.
    """
    data = _blank_to_none(data)
    old_type = current["monitor_type"]
    # The raw value is looked up in tables below: only a known type name may reach them (a
    # list or an object is unhashable; the model has already reported it).
    sent_type = data.get("monitor_type")
    new_type = sent_type if isinstance(sent_type, str) and sent_type in TYPE_RULES else old_type
    extra = scenario_problems(data, new_type) + extra
    parsed, problems = validated(MonitorUpdate, data)
    problems += null_problems(data, NOT_NULL)
    merged = dict(current)
    if new_type != old_type:
        new_defaults = defaults_of(new_type)
        for name, default in defaults_of(old_type).items():
            if name not in data and merged.get(name) == default:
                merged[name] = new_defaults.get(name)
    if parsed is not None:
        merged.update(_sent_values(parsed))
        if "auth_password" in parsed.model_fields_set:
            merged["auth_password"] = parsed.auth_password
        merged["monitor_type"] = new_type
        merged.update({k: v for k, v in defaults_of(new_type).items() if merged.get(k) is None})
        if parsed.request_headers is not None:
            headers, last_id, header_problems = assign_header_ids(
                parsed.request_headers,
                current["request_headers"],
                current["last_request_header_id"],
            )
            merged["request_headers"], merged["last_request_header_id"] = headers, last_id
            problems += header_problems
        elif "request_headers" in data:
            merged["request_headers"] = []
    else:
        merged.update({k: v for k, v in data.items() if k in current})
    # An unknown type sent is reported by the model; no type's rules apply then.
    problems += _rule_problems(old_type if sent_type is None else sent_type, merged) + extra
    if parsed is not None:
        problems += resend_problems(
            "monitor",
            current=current,
            changes=_sent_values(parsed),
            stored=[name for name in WRITE_ONLY_FIELDS if current.get(name) is not None],
            resent=parsed.model_fields_set,
        )
    parsed = accepted(parsed, problems)
    merged.pop("auth_password", None)
    return parsed, merged
