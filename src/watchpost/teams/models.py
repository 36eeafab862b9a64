from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, UTCDateTime


class Team(IdMixin, Base):
    __tablename__ = "teams"

    name: Mapped[str] = mapped_column(String(255), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ApiToken(IdMixin, Base):
    """A team API token. Only its SHA-256 is stored; `prefix` identifies it to people."""

    __tablename__ = "api_tokens"

    team_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("teams.id", ondelete="CASCADE"), index=True
    )
    prefix: Mapped[str] = mapped_column(String(32), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class User(IdMixin, Base):
    """A person in a team, named by status page metadata rules and on-call settings."""

    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("team_id", "email"),)

    team_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("teams.id", ondelete="CASCADE"), index=True
    )
    email: Mapped[str] = mapped_column(String(320))
    name: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
