"""Request and response shapes of /api/v2/locations and their probe tokens; the attributes
the API shows of each."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from watchpost.clock import isoformat_ms, optional_isoformat_ms
from watchpost.locations.models import Location, ProbeToken
from watchpost.probing import service
from watchpost.problems import accepted, checked
from watchpost.validation import Name

Region = Literal["us", "eu", "as", "au"]
OFFLINE_AFTER = Field(
    default=None,
    ge=service.MIN_OFFLINE_AFTER_S,
    le=service.MAX_OFFLINE_AFTER_S,
    description="Seconds without a report after which the location is offline (default 90).",
)
NAME_DOC: Final = "Lower-case letters, digits and dashes (at most 63), unique on the server."
LOCATION_NOT_NULL: Final = ("name", "region", "offline_after")


class LocationCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=63, description=NAME_DOC)
    region: Region
    offline_after: int | None = OFFLINE_AFTER
    private: Literal[True] | None = Field(
        default=None, description="Optional; a team's location is always private."
    )


class LocationUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=63, description=NAME_DOC)
    region: Region | None = None
    offline_after: int | None = OFFLINE_AFTER


class LocationAttributes(BaseModel):
    name: str
    region: Region
    private: bool = Field(description="Checks only the monitors that name it.")
    server: bool = Field(description="The server's own location (its check engine).")
    team: bool = Field(description="Belongs to the token's team (else the operator's).")
    status: Literal["online", "offline", "unknown"] = Field(
        description="unknown: no agent has reported yet."
    )
    last_seen_at: str | None
    offline_after: int
    created_at: str


class ProbeTokenCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name | None = Field(default=None, description="A label for people.")


class ProbeTokenAttributes(BaseModel):
    prefix: str = Field(description="The token's first 12 characters.")
    name: str | None
    location_id: str
    created_at: str
    last_used_at: str | None
    revoked_at: str | None
    token: str | None = Field(
        default=None, description="The token itself: only in the answer that created it."
    )


def parse_create(body: dict[str, Any]) -> LocationCreate:
    return accepted(*checked(LocationCreate, body, read_only=_READ_ONLY))


def parse_update(body: dict[str, Any]) -> LocationUpdate:
    return accepted(
        *checked(LocationUpdate, body, read_only=_READ_ONLY, not_null=LOCATION_NOT_NULL)
    )


_READ_ONLY: Final = frozenset({"server", "team", "status", "last_seen_at", "created_at"})


def location_attributes(location: Location) -> dict[str, Any]:
    return {
        "name": location.name,
        "region": location.region,
        "private": location.private,
        "server": location.is_server,
        "team": location.team_id is not None,
        "status": service.status(location),
        "last_seen_at": optional_isoformat_ms(location.last_seen_at),
        "offline_after": location.offline_after_s,
        "created_at": isoformat_ms(location.created_at),
    }


def token_attributes(token: ProbeToken) -> dict[str, Any]:
    return {
        "prefix": token.prefix,
        "name": token.name,
        "location_id": str(token.location_id),
        "created_at": isoformat_ms(token.created_at),
        "last_used_at": optional_isoformat_ms(token.last_used_at),
        "revoked_at": optional_isoformat_ms(token.revoked_at),
    }
