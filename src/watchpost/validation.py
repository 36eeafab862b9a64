"""Field checks shared by every domain's schemas (host names, URLs, names, bounded integers)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import Annotated, Any, Final
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from watchpost import destinations
from watchpost.errors import NotFound

_LABEL = re.compile(r"^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$")


class ClosedModel(BaseModel):
    """A request or response shape with only the fields it declares: a request sending any
    other is refused (a 422 naming it), and /openapi.json says `additionalProperties: false`."""

    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- integers
#
# Every integer a request carries is bounded by the column that stores it: a value the
# database cannot hold is a 422 naming the field, never an overflow inside the driver
# (SQLite's OverflowError, PostgreSQL's "out of range"). Ids are BIGINT (signed 64-bit);
# other integer columns are INTEGER (signed 32-bit on PostgreSQL).

INT32_MIN: Final = -(2**31)
INT32_MAX: Final = 2**31 - 1
INT64_MAX: Final = 2**63 - 1

# ASCII digits only: str.isdigit() also accepts "²" and "٣", which int() refuses or reads.
_ASCII_DIGITS = re.compile(r"[0-9]+")


def ascii_int(text: str, *, low: int, high: int) -> int | None:
    """The integer text spells in ASCII digits if it lies in [low, high]; None otherwise.

    The length is checked before int() runs, so a 5,000-digit string costs nothing (and
    never meets the interpreter's limit on converting long digit strings).
    """
    if not _ASCII_DIGITS.fullmatch(text):
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(high)):
        return None
    value = int(digits)
    return value if low <= value <= high else None


def parse_id(text: str) -> int | None:
    """An object id written in a URL or a query (1 to 2**63 - 1, ASCII digits); else None."""
    return ascii_int(text, low=1, high=INT64_MAX)


def object_id(raw: str, resource_type: str) -> int:
    """A path id as an integer; anything else (not ASCII digits, out of the id range) names
    no object, so it is a 404."""
    value = parse_id(raw)
    if value is None:
        raise NotFound(resource_type, raw)
    return value


def reference_id(value: object) -> int | None:
    """A raw body value that may be looked up as an id: an int (not a bool) in the id range.

    Services that check a reference before the body's model has run use this, so a value the
    model will refuse (a string, 2**64) never reaches a query. None: nothing to look up.
    """
    if type(value) is int and 1 <= value <= INT64_MAX:
        return value
    return None


def documented_as(schema: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    """A `json_schema_extra` that documents a parameter read as text (and parsed by hand, as
    ids and page numbers are) as what it must be, e.g. a bounded integer."""

    def replace(generated: dict[str, Any]) -> None:
        kept = {key: generated[key] for key in ("description", "title") if key in generated}
        generated.clear()
        generated.update(schema, **kept)

    return replace


# Integer fields are declared Annotated[int, Field(ge=..., le=...)] within these bounds, so the
# bound is both validated and published in the OpenAPI schema (tests walk that schema).
Id = Annotated[int, Field(ge=1, le=INT64_MAX)]
"""A reference to another object (a BIGINT id)."""
Int32 = Annotated[int, Field(ge=INT32_MIN, le=INT32_MAX)]
"""A number in an INTEGER column with no narrower rule of its own (e.g. a sort index)."""
IdText = Annotated[str, Field(max_length=64)]
"""An id sent as a string (the API shows ids as strings); parse_id() reads it."""


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
    try:
        encoded = destinations.ascii_name(name)  # an internationalized name: its xn-- form
    except ValueError:
        raise ValueError("must be a host name or an IP address") from None
    if encoded != name and destinations.literal_address(encoded) is not None:
        raise ValueError("must be a host name or an IP address")  # full-width digits
    labels = encoded.split(".")
    if not encoded or len(encoded) > 253 or not all(_LABEL.match(label) for label in labels):
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


def _destination(
    check: Callable[[str], str], allowed: Callable[[destinations.DestinationPolicy, str], None]
) -> Callable[[str], str]:
    """check(), and then the destination policy's allowed(): a value naming where Watchpost
    connects or sends requests."""

    def check_destination(value: str) -> str:
        text = check(value)
        allowed(destinations.current(), text)
        return text

    return check_destination


# A host, an IP address or a URL that is not in a denied network.
check_destination_host = _destination(check_host, destinations.DestinationPolicy.check_host)
check_destination_ip = _destination(check_ip, destinations.DestinationPolicy.check_host)
check_destination_url = _destination(check_http_url, destinations.DestinationPolicy.check_url)


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
# The pattern documents "not blank" in /openapi.json; check_not_blank enforces it (its message).
Name = Annotated[
    str,
    Field(max_length=255, json_schema_extra={"pattern": r"\S"}),
    AfterValidator(check_not_blank),
]
ShortText = Annotated[str, Field(max_length=255)]
"""Text of at most 255 characters (a VARCHAR(255) column) with no rule of its own."""
Email = Annotated[str, Field(max_length=320)]
"""An e-mail address as sent (RFC 5321's longest): it names a user, looked up, not parsed."""
OwnTeamName = Annotated[ShortText | None, Field(description="Must name the token's team.")]
"""A request's optional `team_name`: one sent must name the token's team (problems.py's
team_name_problems checks it)."""
Port = Annotated[int, Field(ge=1, le=65535)]
Secret = Annotated[str, Field(min_length=1, max_length=1024)]
RetentionDays = Annotated[int, Field(ge=1, le=3652)]


def check_no_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return value


FilterText = Annotated[str, AfterValidator(check_no_nul)]
"""A text query filter (PostgreSQL cannot compare text with NUL, and no stored value holds
one: refused on both backends alike)."""


def check_header_value(value: str) -> str:
    """A request header's value as it will be sent: a line break would end the header (and
    let the value write headers of its own), a NUL is refused by every HTTP client."""
    if any(char in value for char in "\r\n\0"):
        raise ValueError("must not contain line breaks or NUL characters")
    return value
