"""Subscribers of a status page: an e-mail address or a webhook URL each.

A subscriber is told nothing until it is confirmed (`confirmed_at`): an e-mail address by the
link of its confirmation mail, a webhook by a POST to the confirmation URL sent to it. Every
sign-up, also one for an address already subscribed, sets a new `confirm_nonce` (older
confirmation links die) and what the sign-up asked for in the `pending_*` columns; confirming
makes them current. Unsubscribing deletes the row (ids are never reused: its links die too),
as does a webhook answering 410 Gone or failing every delivery for days (`failing_since`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, TimestampMixin, UTCDateTime


class StatusPageSubscriber(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    __tablename__ = "status_page_subscribers"
    __table_args__ = (UniqueConstraint("status_page_id", "address_key"),)

    status_page_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("status_pages.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(16))
    """email or webhook."""
    address: Mapped[str] = mapped_column(Text)
    """The e-mail address or the webhook URL, as given."""
    address_key: Mapped[str] = mapped_column(String(64))
    """SHA-256 of the kind and the address as compared (an e-mail address in lower case)."""
    resource_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    """Status page resources subscribed to; empty: the whole page."""
    pending_resource_ids: Mapped[list[int]] = mapped_column(JSON, default=list)
    confirmed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    requested_at: Mapped[datetime] = mapped_column(UTCDateTime())
    """The last sign-up (a confirmation is sent at most once per REQUEST_INTERVAL)."""
    confirm_nonce: Mapped[str] = mapped_column(String(32))
    unsubscribe_nonce: Mapped[str] = mapped_column(String(32))
    signing_secret_encrypted: Mapped[str | None] = mapped_column(Text, default=None)
    """A webhook's Standard Webhooks key in use (encrypted)."""
    pending_secret_encrypted: Mapped[str | None] = mapped_column(Text, default=None)
    """The key shown at the last sign-up; in use once that sign-up is confirmed."""
    failing_since: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    """A webhook's first failed delivery attempt since its last success (None: not failing).
    Once every attempt has failed for `delivery_disable_after`, the subscriber is removed."""
