"""Response shapes of deliveries (for the OpenAPI description; the routes take no body)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from watchpost.validation import ClosedModel


class DeliveryAttributes(ClosedModel):
    channel: Literal["webhook", "email", "sms", "call", "apprise", "pagerduty"] = Field(
        description="How: an outgoing webhook, an e-mail to a team member, the SMS or call "
        "service, a notification channel (apprise) or a PagerDuty integration."
    )
    outgoing_webhook_id: int | None
    notification_channel_id: int | None
    pagerduty_integration_id: int | None
    recipient: str | None = Field(description="The address of an e-mail.")
    event_id: int
    webhook_message_id: str = Field(description="The `webhook-id` header of every attempt.")
    trigger_type: str
    event: str
    subject_type: str
    subject_id: int
    state: Literal["pending", "succeeded", "failed", "cancelled"]
    attempts: int
    status_code: int | None = Field(description="Of the last attempt.")
    duration_ms: int | None
    response_excerpt: str | None = Field(description="The first KB of the last answer.")
    error: str | None
    created_at: str
    last_attempt_at: str | None
    next_attempt_at: str | None
    delivered_at: str | None


class DeliveryAttemptAttributes(ClosedModel):
    attempt: int = Field(description="Its number: 1 for the first attempt of the delivery.")
    attempted_at: str
    status_code: int | None
    duration_ms: int | None
    response_excerpt: str | None = Field(description="The first KB of the answer.")
    error: str | None
    next_attempt_at: str | None = Field(
        description="The attempt it scheduled; null when it ended the delivery."
    )


class WebhookDeliveryAttributes(DeliveryAttributes):
    attempt_log: list[DeliveryAttemptAttributes] = Field(
        description="Watchpost's own: the delivery's attempts, newest first (at most the "
        "newest 50)."
    )


class ChannelTestAttributes(ClosedModel):
    sent: bool
    duration_ms: int
    error: str | None = Field(description="Why it was not sent (Apprise's words).")
