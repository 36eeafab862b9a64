from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    ForeignKey,
    Select,
    String,
    Text,
    UniqueConstraint,
    false,
    select,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, UTCDateTime


class Team(IdMixin, Base):
    __tablename__ = "teams"

    name: Mapped[str] = mapped_column(String(255), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # Its people sign in to the console with a second factor (an owner's setting).
    require_two_factor: Mapped[bool] = mapped_column(Boolean, server_default=false())


class TokenColumns:
    """A token handed out once (a team's API token, a probe agent's): only its SHA-256 is
    stored; `prefix` identifies it to people."""

    prefix: Mapped[str] = mapped_column(String(32), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str | None] = mapped_column(String(255), default=None)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)


class ApiToken(IdMixin, TokenColumns, Base):
    """A team API token."""

    __tablename__ = "api_tokens"

    team_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("teams.id", ondelete="CASCADE"), index=True
    )
    created_by_id: Mapped[int | None] = mapped_column(IdType, default=None)  # a person's id


class User(IdMixin, Base):
    """A person: one row whatever the number of teams they belong to (`Membership`). Named by
    status page metadata rules and on-call settings, told by e-mail alerts, signed in to the
    console. The e-mail is stored in lower case; `phone_numbers` are E.164 (people/phones.py),
    where SMS and calls telling this person go."""

    __tablename__ = "users"

    email: Mapped[str] = mapped_column(String(320), unique=True)
    name: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    password_hash: Mapped[str | None] = mapped_column(String(255), default=None)  # argon2id
    password_changed_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    totp_secret_encrypted: Mapped[str | None] = mapped_column(Text, default=None)
    totp_enabled_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    phone_numbers: Mapped[list[str]] = mapped_column(
        JSON, default=list, server_default=text("'[]'")
    )


class Membership(IdMixin, Base):
    """A person in a team, with their role there (`people.roles.ROLES`)."""

    __tablename__ = "memberships"
    __table_args__ = (UniqueConstraint("team_id", "user_id"),)

    team_id: Mapped[int] = mapped_column(IdType, ForeignKey("teams.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


def team_users(team_id: int) -> Select[tuple[User]]:
    """The team's people: `select(User)` of those with a membership in the team."""
    return (
        select(User)
        .join(Membership, Membership.user_id == User.id)
        .where(Membership.team_id == team_id)
    )
