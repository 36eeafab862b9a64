from __future__ import annotations

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, TeamOwnedMixin, TimestampMixin


class NotificationChannel(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """A chat or push service (Slack, Discord, Teams, Telegram, ntfy, Pushover, ...) as an
    Apprise URL. The URL holds the service's credentials: stored encrypted, never shown."""

    __tablename__ = "notification_channels"

    name: Mapped[str] = mapped_column(String(255))
    service: Mapped[str] = mapped_column(String(64))
    """The URL's scheme (slack, discord, ntfy, json ...): what the API shows of the URL."""
    url_encrypted: Mapped[str] = mapped_column(Text)
