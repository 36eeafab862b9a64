from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, UTCDateTime


class ConsoleSession(IdMixin, Base):
    """A signed-in browser. Only the SHA-256 of its cookie is stored: a copy of the database
    signs nobody in. Ends when revoked, unused for the idle timeout, or at `expires_at`."""

    __tablename__ = "console_sessions"

    user_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # The team the person is looking at (switched from the navigation).
    team_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("teams.id", ondelete="SET NULL"), default=None
    )
    # False between the password and the second factor: such a session reaches nothing else.
    second_factor_done: Mapped[bool] = mapped_column(Boolean)
    client: Mapped[str] = mapped_column(String(255))  # the browser's User-Agent, cut
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class OneTimeLink(IdMixin, Base):
    """A link mailed or printed once: set the first password, reset it, or accept an
    invitation to a team (with a role). Only its SHA-256 is stored; used once."""

    __tablename__ = "one_time_links"

    user_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    purpose: Mapped[str] = mapped_column(String(16))  # people.links.PURPOSES
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    team_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("teams.id", ondelete="CASCADE"), default=None
    )
    role: Mapped[str | None] = mapped_column(String(16), default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class RecoveryCode(IdMixin, Base):
    """A second factor for the day the phone is lost: each works once (SHA-256 stored)."""

    __tablename__ = "recovery_codes"

    user_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    code_hash: Mapped[str] = mapped_column(String(64))
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
