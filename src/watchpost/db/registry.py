"""Imports every domain's tables so Base.metadata is complete (migrations, checks)."""

from __future__ import annotations

from importlib import import_module

from sqlalchemy import MetaData

# Domains with a models module, one per line.
MODEL_DOMAINS = (
    "audit",
    "channels",
    "collectors",
    "delivery",
    "heartbeats",
    "history",
    "incidents",
    "incoming",
    "locations",
    "logsearch",
    "metadata",
    "monitors",
    "oncall",
    "pagerduty",
    "people",
    "policies",
    "sources",
    "status_pages",
    "subscriptions",
    "teams",
    "urgencies",
    "webhooks",
)


def all_metadata() -> MetaData:
    from watchpost.db.base import Base

    import_module("watchpost.db.counts")  # row_counts, shared by the counted domains
    for domain in MODEL_DOMAINS:
        import_module(f"watchpost.{domain}.models")
    return Base.metadata
