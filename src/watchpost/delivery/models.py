"""The outbox: events written with the change that caused them, and their deliveries.

An event row is written in the transaction of the change it reports (an incident started, a
monitor paused...): nothing is sent for a change that rolled back, and nothing is lost when a
process dies after the commit. Delivery workers dispatch new events (a delivery row for every
webhook that wants the event) and claim due deliveries with leases, as the check engine
claims checks.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from sqlalchemy import JSON, ForeignKey, Index, Integer, PrimaryKeyConstraint, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, UTCDateTime


class DeliveryEvent(IdMixin, TeamOwnedMixin, Base):
    """One thing that happened, as receivers are told it (`payload` is the request body).

    Written with the change; `dispatched_at` is set when a delivery worker has made its
    deliveries (one per webhook that wants it), in one transaction.
    """

    __tablename__ = "delivery_events"
    __table_args__ = (
        Index("ix_delivery_events_created_at", "created_at"),
        Index("ix_delivery_events_dispatched_at", "dispatched_at"),
        Index("ix_delivery_events_subject_type_subject_id", "subject_type", "subject_id"),
    )

    trigger_type: Mapped[str] = mapped_column(String(32))
    event: Mapped[str] = mapped_column(String(32))
    subject_type: Mapped[str] = mapped_column(String(32))
    subject_id: Mapped[int] = mapped_column(IdType)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    channels: Mapped[list[str]] = mapped_column(JSON, default=list)
    """Who else is told besides the webhooks: "email" (the team's members)."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    dispatched_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class Delivery(IdMixin, TeamOwnedMixin, Base):
    """One event to one receiver (an outgoing webhook, or a team member's e-mail address):
    its state, its next attempt and its last outcome."""

    __tablename__ = "deliveries"
    __table_args__ = (
        # Claims look for pending deliveries by due time; the API lists a webhook's newest.
        Index("ix_deliveries_state_next_attempt_at", "state", "next_attempt_at"),
        Index("ix_deliveries_webhook_id_id", "webhook_id", "id"),
        Index("ix_deliveries_subscriber_id", "subscriber_id"),
    )

    event_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("delivery_events.id", ondelete="CASCADE"), index=True
    )
    channel: Mapped[str] = mapped_column(String(16), default="webhook")
    """webhook, email, sms, call, apprise (a notification channel), pagerduty or subscriber
    (a status page subscriber: delivery/extensions.py)."""
    webhook_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("outgoing_webhooks.id", ondelete="CASCADE"), default=None
    )
    recipient: Mapped[str | None] = mapped_column(String(320), default=None)
    """The address of an e-mail delivery."""
    channel_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("notification_channels.id", ondelete="CASCADE"), default=None
    )
    """The notification channel of an Apprise delivery."""
    pagerduty_id: Mapped[int | None] = mapped_column(IdType, default=None)
    """The PagerDuty integration of a pagerduty delivery (no foreign key: deleting one
    deletes its deliveries)."""
    subscriber_id: Mapped[int | None] = mapped_column(IdType, default=None)
    """The status page subscriber of a `subscriber` delivery (no foreign key: unsubscribing
    deletes its deliveries, subscriptions/service.py)."""
    state: Mapped[str] = mapped_column(String(16))
    """pending (an attempt is due at next_attempt_at), succeeded, failed (gave up) or
    cancelled (the webhook was disabled)."""
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    lease_owner: Mapped[str | None] = mapped_column(String(128), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    last_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    status_code: Mapped[int | None] = mapped_column(Integer, default=None)
    duration_ms: Mapped[int | None] = mapped_column(Integer, default=None)
    response_excerpt: Mapped[str | None] = mapped_column(Text, default=None)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


ATTEMPT_LOG_SIZE: Final = 50
"""The newest attempts of a delivery its log keeps (more than the retry schedule makes: only
manual retries go past it)."""


class DeliveryAttempt(Base):
    """One finished attempt of a delivery, in a ring of ATTEMPT_LOG_SIZE rows per delivery.

    Attempt number `number` (the delivery's `attempts` once it was made) lands in slot
    `number % ATTEMPT_LOG_SIZE`, replacing the attempt that many before it (an upsert), so
    manual retries never grow the log past its size and nothing needs pruning. Written with
    the delivery's update, in its transaction; its rows go with their delivery (foreign key,
    cascade), which goes with its event after WATCHPOST_DELIVERY_RETENTION_DAYS. Newest
    first is `number` descending.
    """

    __tablename__ = "delivery_attempts"
    __table_args__ = (
        PrimaryKeyConstraint("delivery_id", "slot"),
        Index("ix_delivery_attempts_delivery_id_number", "delivery_id", "number"),
    )

    delivery_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("deliveries.id", ondelete="CASCADE")
    )
    slot: Mapped[int] = mapped_column(Integer)
    team_id: Mapped[int] = mapped_column(IdType)
    """The delivery's team (no foreign key: the rows go with their delivery)."""
    number: Mapped[int] = mapped_column(Integer)
    attempted_at: Mapped[datetime] = mapped_column(UTCDateTime())
    status_code: Mapped[int | None] = mapped_column(Integer, default=None)
    duration_ms: Mapped[int | None] = mapped_column(Integer, default=None)
    response_excerpt: Mapped[str | None] = mapped_column(Text, default=None)
    """The first KB of the answer, as the delivery keeps it."""
    error: Mapped[str | None] = mapped_column(Text, default=None)
    """Why it failed, masked as the delivery's is (no URL password or query values)."""
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    """The attempt it scheduled; null when it ended the delivery."""
