"""The log explorer's saved searches, per team (migration 0035): a query, source and time
range under a name; the console's /logs lists them (console/saved_searches.py)."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlencode

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, UTCDateTime


class SavedSearch(IdMixin, Base):
    __tablename__ = "saved_searches"
    __table_args__ = (UniqueConstraint("team_id", "name"),)

    team_id: Mapped[int] = mapped_column(IdType, ForeignKey("teams.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    query: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(40))
    time_range: Mapped[str] = mapped_column(String(16))
    range_from: Mapped[str] = mapped_column(String(40))
    range_to: Mapped[str] = mapped_column(String(40))
    created_by_id: Mapped[int | None] = mapped_column(IdType, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(timezone=True))

    @property
    def link(self) -> str:
        values = {
            "q": self.query,
            "source": self.source,
            "range": self.time_range,
            "from": self.range_from,
            "to": self.range_to,
        }
        kept = [(key, value) for key, value in values.items() if value]
        return "/logs" + (f"?{urlencode(kept)}" if kept else "")
