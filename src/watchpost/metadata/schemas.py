"""Request and response shapes of metadata records (the hosted API's /api/v3/metadata)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from watchpost.metadata.values import MAX_VALUES, MetadataValueIn
from watchpost.validation import ClosedModel, Name, OwnTeamName, ShortText


def _id_text(value: object) -> object:
    """An id sent as a number is read as its digits (a bool stays a bool: refused)."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


OwnerType = Annotated[str, Field(max_length=64)]
OwnerId = Annotated[
    str,
    BeforeValidator(_id_text),
    Field(max_length=64),
]
Values = Annotated[list[MetadataValueIn], Field(max_length=MAX_VALUES)]
Mode = Literal["replace", "merge"]


class MetadataWrite(ClosedModel):
    """POST /api/v3/metadata: sets (or, with no values, removes) one key of one owner."""

    owner_type: OwnerType = Field(description="`Monitor`, `Heartbeat` or `Incident`.")
    owner_id: OwnerId = Field(description="The owner's id, a string or a number.")
    key: Name
    values: Values | None = Field(
        default=None, description="Replace the key's values; empty or null removes the key."
    )
    mode: Mode | None = Field(
        default=None, description="`replace` (default) or `merge`: add to the values kept."
    )
    team_name: OwnTeamName = None


class MetadataUpdate(ClosedModel):
    """PATCH /api/v3/metadata/{id}."""

    owner_type: OwnerType | None = Field(
        default=None, description="Must be the record's: an owner cannot change."
    )
    owner_id: OwnerId | None = Field(
        default=None, description="Must be the record's: an owner cannot change."
    )
    key: Name | None = None
    values: Values | None = Field(default=None, description="At least one value.")
    mode: Mode | None = None
    team_name: ShortText | None = None


CREATE_NOT_NULL = ("owner_type", "owner_id", "key")
NOT_NULL = ("owner_type", "owner_id", "key", "values")


class MetadataAttributes(ClosedModel):
    key: str
    values: list[dict[str, Any]]
    team_name: str
    owner_id: str
    owner_type: str
    created_at: str
    updated_at: str
