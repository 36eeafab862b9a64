from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, Text, false, true
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import (
    Base,
    IdMixin,
    IdType,
    TeamOwnedMixin,
    TimestampMixin,
    UTCDateTime,
)
from watchpost.plain_groups import PlainGroupColumns


def _flag(default: bool) -> Mapped[bool]:
    return mapped_column(Boolean, default=default, server_default=true() if default else false())


class StatusPage(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """A public status page. `subdomain` and `custom_domain` are unique installation-wide."""

    __tablename__ = "status_pages"

    company_name: Mapped[str] = mapped_column(String(255))
    company_url: Mapped[str | None] = mapped_column(Text, default=None)
    contact_url: Mapped[str | None] = mapped_column(Text, default=None)
    logo_url: Mapped[str | None] = mapped_column(Text, default=None)
    dark_logo_url: Mapped[str | None] = mapped_column(Text, default=None)
    timezone: Mapped[str] = mapped_column(String(64))
    subdomain: Mapped[str] = mapped_column(String(63), unique=True)
    custom_domain: Mapped[str | None] = mapped_column(String(255), unique=True, default=None)
    history: Mapped[int] = mapped_column(Integer)
    min_incident_length: Mapped[int] = mapped_column(Integer)
    announcement: Mapped[str | None] = mapped_column(Text, default=None)
    password_enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    password_encrypted: Mapped[str | None] = mapped_column(Text, default=None)
    """A password set before migration 0022 (encrypted, not hashed); never written now."""
    password_hash: Mapped[str | None] = mapped_column(Text, default=None)
    """crypto.hash_password's text; the password itself is never stored."""
    hide_from_search_engines: Mapped[bool] = mapped_column(Boolean, default=False)
    theme: Mapped[str] = mapped_column(String(16))
    layout: Mapped[str] = mapped_column(String(16))
    design: Mapped[str] = mapped_column(String(16))
    navigation_links: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    # Stored and returned for the public page's renderer (docs/api.md says which act here).
    whitelabeled: Mapped[bool] = _flag(False)
    subscribable: Mapped[bool] = _flag(False)
    published: Mapped[bool] = _flag(True)
    require_sso: Mapped[bool] = _flag(False)
    automatic_reports: Mapped[bool] = _flag(False)
    announcement_embed_visible: Mapped[bool] = _flag(False)
    announcement_embed_link: Mapped[str | None] = mapped_column(Text, default=None)
    announcement_embed_css: Mapped[str | None] = mapped_column(Text, default=None)
    custom_css: Mapped[str | None] = mapped_column(Text, default=None)
    custom_javascript: Mapped[str | None] = mapped_column(Text, default=None)
    google_analytics_id: Mapped[str | None] = mapped_column(String(64), default=None)
    ip_allowlist: Mapped[list[str]] = mapped_column(JSON, default=list, server_default="[]")
    status_page_group_id: Mapped[int | None] = mapped_column(IdType, default=None)
    """A status_page_groups row of the team (no foreign key: deleting the group clears it)."""


class StatusPageGroup(IdMixin, TeamOwnedMixin, TimestampMixin, PlainGroupColumns, Base):
    """A named, ordered group of status pages (the hosted API's status page groups)."""

    __tablename__ = "status_page_groups"


class StatusPageSection(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """A group of resources on a page; positions are unique within the page (ordering.py)."""

    __tablename__ = "status_page_sections"

    status_page_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("status_pages.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(255), default="")
    position: Mapped[int] = mapped_column(Integer)
    fixed_position: Mapped[bool] = mapped_column(Boolean, default=False)


class StatusPageResource(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """One item shown on a page. `resource_id` names a row of the table that RESOURCE_KINDS
    maps `resource_type` to (null for ManuallyTrackedItem); metadata rules are JSON
    {"key", "values": [{"type", ...}]} as resolved at write time."""

    __tablename__ = "status_page_resources"

    status_page_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("status_pages.id", ondelete="CASCADE"), index=True
    )
    status_page_section_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("status_page_sections.id", ondelete="CASCADE"), index=True
    )
    resource_type: Mapped[str] = mapped_column(String(32))
    resource_id: Mapped[int | None] = mapped_column(IdType, default=None)
    public_name: Mapped[str | None] = mapped_column(String(255), default=None)
    explanation: Mapped[str] = mapped_column(Text, default="")
    widget_type: Mapped[str] = mapped_column(String(32))
    position: Mapped[int] = mapped_column(Integer)
    fixed_position: Mapped[bool] = mapped_column(Boolean, default=False)
    mark_as_down_for: Mapped[str] = mapped_column(String(32))
    mark_as_down_metadata_rule: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    mark_as_degraded_for: Mapped[str] = mapped_column(String(32))
    mark_as_degraded_metadata_rule: Mapped[dict[str, Any] | None] = mapped_column(
        JSON, default=None
    )


class StatusReport(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """A report on a page (an incident told by hand, or a maintenance). Its current
    `affected_resources` are its newest update's, copied here on every write (reports.py),
    or the last ones set when it has no update left."""

    __tablename__ = "status_reports"

    status_page_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("status_pages.id", ondelete="CASCADE"), index=True
    )
    title: Mapped[str] = mapped_column(Text, default="")
    report_type: Mapped[str] = mapped_column(String(16))
    starts_at: Mapped[datetime] = mapped_column(UTCDateTime())
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    affected_resources: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    """The current ones: [{"status_page_resource_id": int, "status": str}] as sent."""
    resolved: Mapped[bool] = mapped_column(Boolean, default=False)
    """No current affected resource has a status other than `resolved`."""


class StatusUpdate(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    """One update of a report: its message and each affected resource's status then."""

    __tablename__ = "status_updates"

    status_page_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("status_pages.id", ondelete="CASCADE"), index=True
    )
    status_report_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("status_reports.id", ondelete="CASCADE"), index=True
    )
    message: Mapped[str] = mapped_column(Text, default="")
    published_at: Mapped[datetime] = mapped_column(UTCDateTime())
    notify_subscribers: Mapped[bool] = mapped_column(Boolean, default=False)
    affected_resources: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)


class ReportAnnouncement(TeamOwnedMixin, Base):
    """A maintenance report's start or end still to be announced to the page's subscribers:
    `phase` start (due at starts_at) or end (due at ends_at). The delivery pass records the
    event and moves the row on (start → end), or deletes it after the end
    (status_pages/announcements.py)."""

    __tablename__ = "status_report_announcements"

    status_report_id: Mapped[int] = mapped_column(
        IdType, ForeignKey("status_reports.id", ondelete="CASCADE"), primary_key=True
    )
    phase: Mapped[str] = mapped_column(String(16))
    next_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


PageRowT = TypeVar("PageRowT", bound=Base)


def page_row(model: type[PageRowT], page: StatusPage, now: datetime, **values: Any) -> PageRowT:
    """A new row of `model` belonging to the page (its team's), created and updated now."""
    return model(
        team_id=page.team_id, status_page_id=page.id, created_at=now, updated_at=now, **values
    )
