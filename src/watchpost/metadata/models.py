from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, TimestampMixin


class MetadataRecord(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """One key of one owner (a monitor, heartbeat or incident of the team) and its values.

    The owner is named by (owner_type, owner_id), which no foreign key can follow: database
    triggers on the owners' tables delete an owner's records with it (migration 0025)."""

    __tablename__ = "metadata_records"
    __table_args__ = (
        UniqueConstraint("team_id", "owner_type", "owner_id", "key"),
        Index("ix_metadata_records_owner_type_owner_id", "owner_type", "owner_id"),
    )

    owner_type: Mapped[str] = mapped_column(String(32))
    owner_id: Mapped[int] = mapped_column(IdType)
    key: Mapped[str] = mapped_column(String(255))
    values: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    """The values as stored: type, and value (String) or item_id, name, email (references);
    numeric_id when item_id was sent as a number (shown back so)."""
