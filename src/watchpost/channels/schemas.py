"""Request and response shapes of notification channels."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field

from watchpost import destinations, masking
from watchpost.validation import ClosedModel, Name


def check_apprise_url(value: str) -> str:
    """A URL Apprise can send to, not aimed at a denied network."""
    text = value.strip()
    host = urlsplit(text).hostname
    if host:
        destinations.current().check_host(host)
    import apprise  # loaded at first use (delivery/chat.py)

    with masking.apprise_unlogged():  # a refused URL: Apprise's lines would name its token
        service = apprise.Apprise.instantiate(text, suppress_exceptions=True)
    if service is None:
        raise ValueError(
            "must be an Apprise URL of a supported service (e.g. slack://…, discord://…, "
            "ntfy://…, json://host/path; see the Apprise documentation)"
        )
    return text


AppriseUrl = Annotated[str, Field(max_length=2048), AfterValidator(check_apprise_url)]


class ChannelCreate(ClosedModel):
    name: Name | None = Field(default=None, description="Default: the service's name.")
    url: AppriseUrl = Field(
        description="An Apprise URL (credentials included). Write-only: stored encrypted, "
        "never returned."
    )


class ChannelUpdate(ClosedModel):
    name: Name | None = None
    url: AppriseUrl | None = None


CHANNEL_NOT_NULL = ("name", "url")


class ChannelAttributes(ClosedModel):
    name: str
    service: str = Field(description="The Apprise URL's scheme: slack, discord, ntfy, json…")
    team_name: str
    created_at: str
    updated_at: str


# The collection's convention (http/collection.py).
PREFIX = "/api/v2/notification-channels"
ABOUT = (
    "A chat or push service reached through Apprise (Slack, Discord, Microsoft Teams, "
    "Telegram, ntfy, Pushover, PagerDuty, Opsgenie, Mattermost, Matrix, and about 150 more), "
    "given as an Apprise URL. The URL carries the service's credentials: it is stored "
    "encrypted and never returned; `service` shows its scheme. Every channel of the team is "
    "told when an incident starts and when it is resolved."
)
NOUN = "notification channel"
PLURAL = "notification channels"
ATTRIBUTES = ChannelAttributes
CREATE = ChannelCreate
UPDATE = ChannelUpdate
NOT_NULL = CHANNEL_NOT_NULL
