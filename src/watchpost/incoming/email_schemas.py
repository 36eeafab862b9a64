"""Request and response shapes of e-mail integrations: an incoming webhook's attributes with
`email_address` for `url` and no samples."""

from __future__ import annotations

from typing import Final

from pydantic import Field

from watchpost.incoming.schemas import (
    NOT_NULL_FIELDS,
    IntegrationAttributes,
    WebhookCreate,
    WebhookUpdate,
)
from watchpost.validation import Name


class EmailCreate(WebhookCreate):
    name: Name | None = Field(default=None, description="Default: E-mail integration.")


class EmailUpdate(WebhookUpdate):
    pass


class EmailAttributes(IntegrationAttributes):
    email_address: str | None = Field(
        description="Always null: Watchpost receives no e-mail (docs/api.md)."
    )


# The collection's convention (http/collection.py).
PREFIX: Final = "/api/v2/email-integrations"
ABOUT: Final = (
    "The hosted API's e-mail integration, with an incoming webhook's rules and fields "
    "(`rule_target`/`field_target` from_email, subject or body). Stored and shown back as "
    "sent, for its clients; **Watchpost receives no e-mail**: `email_address` is null and "
    "the rules never run."
)
NOUN: Final = "e-mail integration"
PLURAL: Final = "e-mail integrations"
ATTRIBUTES = EmailAttributes
CREATE = EmailCreate
UPDATE = EmailUpdate
NOT_NULL = NOT_NULL_FIELDS
