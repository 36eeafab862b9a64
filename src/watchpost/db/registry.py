"""Imports every domain's tables so Base.metadata is complete (migrations, checks)."""

from __future__ import annotations

from sqlalchemy import MetaData


def all_metadata() -> MetaData:
    import watchpost.collectors.models
    import watchpost.heartbeats.models
    import watchpost.monitors.models
    import watchpost.sources.models
    import watchpost.status_pages.models
    import watchpost.teams.models
    import watchpost.webhooks.models  # noqa: F401
    from watchpost.db.base import Base

    return Base.metadata
