from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text, false, text, true
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.db.base import Base, IdMixin, IdType, TeamOwnedMixin, TimestampMixin, UTCDateTime
from watchpost.db.schedule_columns import ScheduleColumns
from watchpost.maintenance_windows import MaintenanceColumns
from watchpost.notification_fields import NotificationColumns


class MonitorGroup(IdMixin, TeamOwnedMixin, TimestampMixin, Base):
    __tablename__ = "monitor_groups"

    name: Mapped[str] = mapped_column(String(255))
    sort_index: Mapped[int] = mapped_column(Integer, default=0)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)


class Monitor(
    IdMixin,
    TeamOwnedMixin,
    TimestampMixin,
    MaintenanceColumns,
    NotificationColumns,
    ScheduleColumns,
    Base,
):
    """An uptime check of a URL or host, run every `check_frequency` seconds.

    Engine-facing columns:
    - `status`: `pending` on creation and after unpausing, `paused` while paused; the check
      engine moves it to up, down, validating or maintenance.
    - `next_check_at`: when the engine should check next (it picks rows with
      next_check_at <= now, indexed). Set to now on creation, on unpausing and whenever a
      check setting changes, so a new or changed monitor is checked within seconds; null
      while paused (never picked). The engine moves it forward along the monitor's
      schedule (engine/schedule.py); `lease_owner` / `lease_expires_at` mark a running check.
    - `last_checked_at`: when the engine last finished a check; null until the first.
    - `check_status`, `failing_since`, `recovering_since`, `last_error`: the status
      machine's memory (monitors/status_machine.py: state_of / apply / record_check).
      `check_status` is pending, up, down or validating; `status` shows paused or
      maintenance over it.
    - `request_headers`: JSON list of {"id": int, "name", "value"}; `last_request_header_id`
      numbers new entries so an id is never reused within the monitor.
    - `port` is stored as an integer; the API writes it as a string. A list of ports
      ("25,465,587", mail types) keeps its first in `port` and the text in `port_list`.
    """

    __tablename__ = "monitors"
    __table_args__ = (Index("ix_monitors_next_check_at", "next_check_at"),)

    monitor_type: Mapped[str] = mapped_column(String(32))
    url: Mapped[str] = mapped_column(String(2048))
    pronounceable_name: Mapped[str | None] = mapped_column(String(255), default=None)
    monitor_group_id: Mapped[int | None] = mapped_column(
        IdType, ForeignKey("monitor_groups.id", ondelete="SET NULL"), index=True, default=None
    )
    required_keyword: Mapped[str | None] = mapped_column(Text, default=None)
    port: Mapped[int | None] = mapped_column(Integer, default=None)
    http_method: Mapped[str | None] = mapped_column(String(8), default=None)
    request_body: Mapped[str | None] = mapped_column(Text, default=None)
    request_headers: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    last_request_header_id: Mapped[int] = mapped_column(Integer, default=0)
    expected_status_codes: Mapped[list[int]] = mapped_column(JSON, default=list)
    follow_redirects: Mapped[bool | None] = mapped_column(Boolean, default=None)
    verify_ssl: Mapped[bool | None] = mapped_column(Boolean, default=None)
    remember_cookies: Mapped[bool | None] = mapped_column(Boolean, default=None)
    auth_username: Mapped[str | None] = mapped_column(String(255), default=None)
    auth_password_encrypted: Mapped[str | None] = mapped_column(Text, default=None)
    check_frequency: Mapped[int] = mapped_column(Integer)
    confirmation_period: Mapped[int] = mapped_column(Integer)
    recovery_period: Mapped[int] = mapped_column(Integer)
    request_timeout: Mapped[int] = mapped_column(Integer)
    ssl_expiration: Mapped[int | None] = mapped_column(Integer, default=None)
    domain_expiration: Mapped[int | None] = mapped_column(Integer, default=None)
    regions: Mapped[list[str]] = mapped_column(JSON, default=list)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    paused_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    last_checked_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    check_status: Mapped[str] = mapped_column(
        String(16), default="pending", server_default="pending"
    )
    failing_since: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    recovering_since: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    last_error: Mapped[str | None] = mapped_column(Text, default=None)
    port_list: Mapped[str | None] = mapped_column(String(64), default=None)
    expiration_policy_id: Mapped[int | None] = mapped_column(IdType, default=None)
    """Stored (no foreign key, as policy_id)."""
    proxy_host: Mapped[str | None] = mapped_column(String(255), default=None)
    proxy_port: Mapped[int | None] = mapped_column(Integer, default=None)
    ip_version: Mapped[str | None] = mapped_column(String(8), default=None)
    playwright_script: Mapped[str | None] = mapped_column(Text, default=None)
    environment_variables: Mapped[dict[str, str] | None] = mapped_column(JSON, default=None)
    locations: Mapped[list[str]] = mapped_column(JSON, default=list, server_default=text("'[]'"))
    """Locations named exactly (besides those `regions` select); see monitors/placement.py."""
    confirmation_rule: Mapped[str] = mapped_column(
        String(12), default="majority", server_default="majority"
    )
    """any, majority, all or at_least (`confirmation_locations` of them) failing: down."""
    confirmation_locations: Mapped[int | None] = mapped_column(Integer, default=None)
    checked_here: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    """The server's own location checks it (this row is that check's schedule)."""
    located: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Checked from more than the server alone: its verdict is made from every location's
    latest result (location_checks) rather than from one result."""
    degraded_since: Mapped[datetime | None] = mapped_column(UTCDateTime(), default=None)
    """Some locations fail, too few for the confirmation rule to call it down."""
