"""Types of status page attributes: subdomains, URLs and links, the IP allowlist."""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

from watchpost import destinations
from watchpost.validation import Host, HttpUrl, check_http_url

_DNS_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")


def check_subdomain(value: str) -> str:
    """A DNS label (letters, digits, inner hyphens; at most 63), stored lowercase."""
    text = value.strip().lower()
    if not _DNS_LABEL.match(text):
        raise ValueError(
            "must be a DNS label: 1-63 letters, digits or hyphens, not starting or ending "
            "with a hyphen"
        )
    return text


def check_contact_url(value: str) -> str:
    """An http(s) URL or a mailto: address."""
    text = value.strip()
    if text.startswith("mailto:") and "@" in text:
        return text
    try:
        return check_http_url(text)
    except ValueError:
        raise ValueError("must be an absolute http or https URL or a mailto: address") from None


def check_link_href(value: str) -> str:
    """A navigation link: an absolute http(s) URL, a mailto: address, or a path on the page
    itself (`/`, `/incidents`, `/maintenance`)."""
    text = value.strip()
    if text.startswith("/") and not text.startswith("//") and not any(c.isspace() for c in text):
        return text
    try:
        return check_contact_url(text)
    except ValueError:
        raise ValueError(
            "must be an absolute http or https URL, a mailto: address or a path such as /incidents"
        ) from None


def check_allowlist_entry(value: str) -> str:
    """An IPv4 or IPv6 address or CIDR range, or a comment line starting with `#`; kept as
    sent."""
    text = value.strip()
    if text.startswith("#"):
        return value
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise ValueError(
            f"{value!r} is not an IP address, a CIDR range or a comment starting with #"
        ) from None
    return value


def _blank_is_none(value: Any) -> Any:
    """ "" means "none" (the hosted API's clients send it to remove a value)."""
    if isinstance(value, str) and not value.strip():
        return None
    return value


def _ascii_domain(value: str) -> str:
    """A custom domain in ASCII, lowercase: browsers send an internationalized name's xn--
    form as Host, and one spelling per domain keeps domains unique."""
    if not value.isascii():
        encoded = destinations.ascii_name(value)
        raise ValueError(f"must be written in ASCII: an internationalized name as {encoded}")
    return value.lower()


Subdomain = Annotated[str, Field(max_length=63), AfterValidator(check_subdomain)]
ContactUrl = Annotated[str, Field(max_length=2048), AfterValidator(check_contact_url)]
LinkHref = Annotated[str, Field(max_length=2048), AfterValidator(check_link_href)]
Domain = Annotated[Host, AfterValidator(_ascii_domain)]
HistoryDays = Annotated[int, Field(ge=7, le=365)]
IncidentSeconds = Annotated[int, Field(ge=0, le=86_400)]
Text = Annotated[str, Field(max_length=10_000)]
Code = Annotated[str, Field(max_length=100_000)]
"""Custom CSS or JavaScript, stored as sent."""
Password = Annotated[str, Field(max_length=1024)]
AllowlistEntry = Annotated[str, Field(max_length=255), AfterValidator(check_allowlist_entry)]
MAX_ALLOWLIST = 1_000
MAX_NAVIGATION_LINKS = 20

# Nullable URLs: "" clears them, as null does.
OptionalUrl = Annotated[HttpUrl | None, BeforeValidator(_blank_is_none)]
OptionalContactUrl = Annotated[ContactUrl | None, BeforeValidator(_blank_is_none)]
OptionalDomain = Annotated[Domain | None, BeforeValidator(_blank_is_none)]
