"""Field checks shared by every domain's schemas (host names, URLs, names)."""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field

from watchpost import destinations

_LABEL = re.compile(r"^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$")


def check_host(value: str) -> str:
    """A host name (RFC 1123 labels; `_` allowed for container names) or an IP address."""
    text = value.strip()
    candidate = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        ipaddress.ip_address(candidate)
        return candidate
    except ValueError:
        pass
    name = text[:-1] if text.endswith(".") else text
    if not name or len(name) > 253 or not all(_LABEL.match(label) for label in name.split(".")):
        raise ValueError("must be a host name or an IP address")
    return text


def check_ip(value: str) -> str:
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        raise ValueError("must be an IP address") from None


def check_http_url(value: str) -> str:
    """An absolute http:// or https:// URL with a valid host."""
    text = value.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise ValueError("must be an absolute http or https URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an absolute http or https URL")
    check_host(parts.hostname)
    if port == 0:
        raise ValueError("must not use port 0")
    return text


def check_destination_host(value: str) -> str:
    """check_host(), and not in a denied network: a host Watchpost connects to."""
    text = check_host(value)
    destinations.current().check_host(text)
    return text


def check_destination_ip(value: str) -> str:
    text = check_ip(value)
    destinations.current().check_host(text)
    return text


def check_destination_url(value: str) -> str:
    """check_http_url(), and its host not in a denied network: a URL Watchpost requests."""
    text = check_http_url(value)
    destinations.current().check_url(text)
    return text


def check_not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value.strip()


Host = Annotated[str, Field(max_length=255), AfterValidator(check_host)]
IpAddress = Annotated[str, Field(max_length=64), AfterValidator(check_ip)]
HttpUrl = Annotated[str, Field(max_length=2048), AfterValidator(check_http_url)]
# Where Watchpost connects (monitors, collector targets, webhooks); the others are only shown.
DestinationHost = Annotated[str, Field(max_length=255), AfterValidator(check_destination_host)]
DestinationIp = Annotated[str, Field(max_length=64), AfterValidator(check_destination_ip)]
DestinationUrl = Annotated[str, Field(max_length=2048), AfterValidator(check_destination_url)]
Name = Annotated[str, Field(max_length=255), AfterValidator(check_not_blank)]
Port = Annotated[int, Field(ge=1, le=65535)]
Secret = Annotated[str, Field(min_length=1, max_length=1024)]
RetentionDays = Annotated[int, Field(ge=1, le=3652)]
