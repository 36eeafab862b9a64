"""Which fields each monitor type requires and accepts, its URL form, timeout unit and ports.

This table is the single source of the rules: request validation, the OpenAPI
description of the create endpoint and the tests all read it.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Annotated, Any, Final, Literal, get_args
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field

from watchpost.destinations import DeniedDestination
from watchpost.validation import (
    ascii_int,
    check_destination_host,
    check_destination_url,
    check_host,
    check_http_url,
)

MonitorType = Literal[
    "status",
    "expected_status_code",
    "keyword",
    "keyword_absence",
    "ping",
    "tcp",
    "udp",
    "smtp",
    "pop",
    "imap",
    "dns",
    "playwright",
]
HTTP_METHODS: Final[tuple[str, ...]] = ("get", "head", "post", "put", "patch")
IpVersion = Literal["ipv4", "ipv6"]


def check_http_method(value: str) -> str:
    """One of HTTP_METHODS in any case, kept as sent (the Terraform provider sends "GET")."""
    if value.strip().lower() not in HTTP_METHODS:
        raise ValueError("must be one of get, head, post, put, patch (any case)")
    return value.strip()


HttpMethod = Annotated[str, Field(max_length=8), AfterValidator(check_http_method)]
Region = Literal["us", "eu", "as", "au"]
ExpirationDays = Literal[1, 2, 3, 7, 14, 30, 60]

MONITOR_TYPES: Final[tuple[str, ...]] = get_args(MonitorType)
REGIONS: Final[tuple[str, ...]] = get_args(Region)
EXPIRATION_DAYS: Final[tuple[int, ...]] = get_args(ExpirationDays)
DEFAULT_MONITOR_TYPE: Final = "status"

# Fields whose applicability depends on the monitor type. Every other field (url,
# request_timeout, check timing, expirations, regions, maintenance, notifications, paused,
# monitor_group_id) applies to every type.
REQUEST_FIELDS: Final[tuple[str, ...]] = (
    "required_keyword",
    "port",
    "http_method",
    "request_body",
    "request_headers",
    "expected_status_codes",
    "follow_redirects",
    "verify_ssl",
    "remember_cookies",
    "auth_username",
)
"""The type-dependent fields a check's request reads (stored as columns of the same names)."""
PLAYWRIGHT_FIELDS: Final[tuple[str, ...]] = ("playwright_script", "environment_variables")
"""Stored for playwright monitors (no browser runs them here)."""
TYPE_FIELDS: Final[tuple[str, ...]] = (
    *REQUEST_FIELDS,
    "auth_password",
    "ssl_expiration",
    *PLAYWRIGHT_FIELDS,
)
WRITE_ONLY_FIELDS: Final[frozenset[str]] = frozenset({"auth_password"})
LIST_FIELDS: Final[frozenset[str]] = frozenset(
    {"request_headers", "expected_status_codes", "environment_variables"}
)


@dataclass(frozen=True)
class Timeout:
    """The allowed range and default of request_timeout, in the type's unit."""

    unit: Literal["seconds", "milliseconds"]
    low: int
    high: int
    default: int


HTTP_TIMEOUT: Final = Timeout("seconds", 1, 60, 30)
PLAYWRIGHT_TIMEOUT: Final = Timeout("seconds", 15, 900, 60)
NETWORK_TIMEOUT: Final = Timeout("milliseconds", 100, 60_000, 5_000)


@dataclass(frozen=True)
class TypeRule:
    url: Literal["http", "host", "name"]
    """`http`: an absolute http(s) URL; `host`: a host name or IP address; `name`: any text
    (a playwright monitor's scenario name, which the hosted API keeps in url)."""
    required: tuple[str, ...]
    optional: tuple[str, ...]
    timeout: Timeout
    ports: tuple[int, ...] = ()
    """Allowed ports when port applies; empty means any port 1 to 65535."""
    defaults: dict[str, Any] = field(default_factory=dict)
    supported: bool = True

    @property
    def accepted(self) -> frozenset[str]:
        return frozenset(self.required) | frozenset(self.optional)


_HTTP_OPTIONAL = (
    "http_method",
    "request_body",
    "request_headers",
    "follow_redirects",
    "verify_ssl",
    "remember_cookies",
    "auth_username",
    "auth_password",
    "ssl_expiration",
)
_HTTP_DEFAULTS: Final[dict[str, Any]] = {
    "http_method": "get",
    "follow_redirects": True,
    "verify_ssl": True,
    "remember_cookies": False,
}


def _http(required: tuple[str, ...] = ()) -> TypeRule:
    return TypeRule(
        url="http",
        required=required,
        optional=_HTTP_OPTIONAL,
        timeout=HTTP_TIMEOUT,
        defaults=_HTTP_DEFAULTS,
    )


def _network(
    required: tuple[str, ...] = (), optional: tuple[str, ...] = (), ports: tuple[int, ...] = ()
) -> TypeRule:
    # http_method applies to every type: the Terraform provider sends its default ("GET")
    # for each monitor; outside the HTTP types it has no effect.
    return TypeRule(
        url="host",
        required=required,
        optional=(*optional, "http_method"),
        timeout=NETWORK_TIMEOUT,
        ports=ports,
    )


TYPE_RULES: Final[dict[str, TypeRule]] = {
    "status": _http(),
    "expected_status_code": _http(("expected_status_codes",)),
    "keyword": _http(("required_keyword",)),
    "keyword_absence": _http(("required_keyword",)),
    "ping": _network(),
    "tcp": _network(("port",)),
    # request_body is the payload sent; required_keyword must appear in the answer.
    "udp": _network(("port", "required_keyword"), ("request_body",)),
    "smtp": _network(("port",), ports=(25, 465, 587)),
    "pop": _network(("port",), ports=(110, 995)),
    "imap": _network(("port",), ports=(143, 993)),
    # url is the DNS server; request_body the name to resolve; required_keyword, when
    # given, must appear among the answers.
    "dns": _network(("request_body",), ("required_keyword",)),
    # Stored and shown; checks report that no browser runtime is configured.
    "playwright": TypeRule(
        url="name",
        required=(),
        optional=("http_method", *PLAYWRIGHT_FIELDS),
        timeout=PLAYWRIGHT_TIMEOUT,
    ),
}
assert set(TYPE_RULES) == set(MONITOR_TYPES)
assert all(rule.accepted <= set(TYPE_FIELDS) for rule in TYPE_RULES.values())
assert all(set(rule.defaults) <= rule.accepted for rule in TYPE_RULES.values())

UNSUPPORTED_MESSAGE = "{0} monitors are not supported yet"


def defaults_of(monitor_type: str) -> dict[str, Any]:
    """Values a field takes when not given: the type's defaults and its request_timeout."""
    rule = TYPE_RULES[monitor_type]
    return {**rule.defaults, "request_timeout": rule.timeout.default}


def _url_problem(rule: TypeRule, monitor_type: str, url: str) -> str | None:
    if rule.url == "name":
        return (
            None
            if url.strip()
            else f"url (or scenario_name) is required for {monitor_type} monitors"
        )
    try:
        if rule.url == "http":
            check_http_url(url)
        else:
            check_host(url)
    except ValueError:
        if rule.url == "http":
            return f"url must be an absolute http or https URL for {monitor_type} monitors"
        return f"url must be a host name or an IP address (no scheme, no path) for {monitor_type} monitors"
    try:
        if rule.url == "http":
            check_destination_url(url)
        else:
            check_destination_host(url)
    except DeniedDestination as exc:
        return f"url {exc}"
    return None


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def url_host(monitor_type: str, url: str) -> str:
    """The host a valid url names."""
    rule = TYPE_RULES[monitor_type]
    if rule.url == "http":
        return urlsplit(url.strip()).hostname or ""
    if rule.url == "name":
        return ""
    return url.strip()


def type_problems(monitor_type: str, values: dict[str, Any]) -> list[tuple[str | None, str]]:
    """(field, message) for every rule of the type the values break, all at once.

    `values` holds the monitor as it would be saved; a type field counts as given when it is
    not None (and, for lists, not empty). Types and formats are checked before, by pydantic.
    """
    rule = TYPE_RULES[monitor_type]
    if not rule.supported:
        return [("monitor_type", UNSUPPORTED_MESSAGE.format(monitor_type))]
    present = {name for name in TYPE_FIELDS if given(values.get(name))}
    problems: list[tuple[str | None, str]] = [
        (name, f"{name} is required for {monitor_type} monitors")
        for name in rule.required
        if name not in present
    ]
    accepted = ", ".join(("url", *rule.required, *rule.optional)) + " and the common fields"
    problems += [
        (name, f"{name} does not apply to {monitor_type} monitors (they accept: {accepted})")
        for name in TYPE_FIELDS
        if name in present and name not in rule.accepted
    ]
    url = values.get("url")
    url_ok = False
    if isinstance(url, str):
        message = _url_problem(rule, monitor_type, url)
        url_ok = message is None
        if message is not None:
            problems.append(("url", message))
    ports = port_numbers(values.get("port"))
    if "port" in present and ports is not None:
        allowed = ", ".join(str(p) for p in rule.ports)
        if rule.ports and any(port not in rule.ports for port in ports):
            problems.append(
                (
                    "port",
                    f"port must be one of {allowed}, or several of them separated by commas, "
                    f"for {monitor_type} monitors",
                )
            )
        elif len(ports) > 1 and not rule.ports:
            problems.append(("port", f"port must be a single port for {monitor_type} monitors"))
    timeout = values.get("request_timeout")
    if type(timeout) is int and not rule.timeout.low <= timeout <= rule.timeout.high:
        problems.append(
            (
                "request_timeout",
                f"request_timeout must be between {rule.timeout.low} and {rule.timeout.high} "
                f"{rule.timeout.unit} for {monitor_type} monitors",
            )
        )
    if (
        "ssl_expiration" in present
        and "ssl_expiration" in rule.accepted
        and url_ok
        and urlsplit(str(url).strip()).scheme != "https"
    ):
        problems.append(("ssl_expiration", "ssl_expiration needs an https:// url"))
    if (
        given(values.get("domain_expiration"))
        and isinstance(url, str)
        and url_ok
        and _is_ip(url_host(monitor_type, url))
    ):
        problems.append(
            ("domain_expiration", "domain_expiration needs a url with a domain name, not an IP")
        )
    body = values.get("request_body")
    if monitor_type == "dns" and isinstance(body, str) and body.strip():
        try:
            check_host(body)
        except ValueError:
            problems.append(
                ("request_body", "request_body must be the domain name to resolve for dns monitors")
            )
    return problems


def port_number(value: Any) -> int | None:
    """A port given as a string of digits (or an integer) as a number; None when malformed."""
    if type(value) is int:
        return value
    if isinstance(value, str):
        return ascii_int(value.strip(), low=0, high=99_999)
    return None


MAX_PORTS: Final = 8


def port_numbers(value: Any) -> list[int] | None:
    """The ports of a port value: one port, or several separated by commas ("25,465,587");
    None when malformed or out of range."""
    if type(value) is int:
        return [value] if 1 <= value <= 65535 else None
    if not isinstance(value, str):
        return None
    parts = value.split(",")
    if len(parts) > MAX_PORTS:
        return None
    numbers = [port_number(part) for part in parts]
    if any(number is None or not 1 <= number <= 65535 for number in numbers):
        return None
    return [number for number in numbers if number is not None]


def given(value: Any) -> bool:
    """Whether a field value counts as set: not None, not a blank string, not an empty list."""
    if value is None:
        return False
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, list | dict):
        return bool(value)
    return True


def rules_markdown() -> str:
    """The table as Markdown, for the OpenAPI description."""
    lines = [
        "| monitor_type | url | required | optional | request_timeout | ports |",
        "|---|---|---|---|---|---|",
    ]
    for name, rule in TYPE_RULES.items():
        if not rule.supported:
            lines.append(f"| {name} | not supported yet | | | | |")
            continue
        url = {"http": "http(s) URL", "host": "host name or IP", "name": "scenario name"}[rule.url]
        timeout = (
            f"{rule.timeout.low} to {rule.timeout.high} {rule.timeout.unit}, "
            f"default {rule.timeout.default}"
        )
        ports = ", ".join(str(p) for p in rule.ports) or ("any" if "port" in rule.accepted else "")
        lines.append(
            f"| {name} | {url} | {', '.join(rule.required) or 'none'} | "
            f"{', '.join(rule.optional) or 'none'} | {timeout} | {ports} |"
        )
    return "\n".join(lines)
