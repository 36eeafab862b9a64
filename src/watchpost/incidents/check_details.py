"""What a monitor's incident shows of the check that opened it (the hosted API's v3 incident
fields): the URL and method checked, the regions, and facts the probe read.

Taken once, as the incident opens, and kept on it (`incidents.check_details`): a monitor
changed later does not rewrite its past incidents. Only what Watchpost observes is shown;
the rest of the hosted fields are null (docs/api.md, "Incidents").
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from watchpost.clock import isoformat_ms

FIELDS: Final = (
    "url",
    "http_method",
    "origin_url",
    "response_url",
    "response_content",
    "response_options",
    "regions",
    "screenshot_url",
    "ssl_certificate_expires_at",
    "domain_expires_at",
    "incident_group_id",
    "locations",
)
"""The incident attributes shown from check_details, in their order."""

_FACTS: Final = ("status_code", "address", "addresses", "banner")
"""Probe details worth keeping beside the incident (status code, resolved addresses …)."""


def taken(
    *,
    url: str,
    monitor_type: str,
    http_method: str | None,
    regions: list[str] | None,
    details: Mapping[str, str],
    locations: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """check_details for a monitor's incident opening now, from the monitor and the result
    of the check that opened it (`locations`: how each location found a monitor checked
    from several)."""
    kept: dict[str, Any] = {"url": url, "regions": list(regions or [])}
    if locations:
        kept["locations"] = locations
    if monitor_type in ("status", "expected_status_code", "keyword", "keyword_absence"):
        kept["http_method"] = (http_method or "get").upper()
    facts = {name: details[name] for name in _FACTS if name in details}
    if facts:
        kept["response_options"] = facts
    if "not_after" in details:
        kept["ssl_certificate_expires_at"] = isoformat_ms(
            datetime.fromisoformat(details["not_after"])
        )
    return kept


def shown(details: Mapping[str, Any] | None) -> dict[str, Any]:
    """The FIELDS attributes of an incident (all null for one not about a monitor)."""
    found = details or {}
    return {
        "url": found.get("url"),
        "http_method": found.get("http_method"),
        "origin_url": found.get("url"),
        "response_url": None,
        "response_content": None,
        "response_options": found.get("response_options"),
        "regions": found.get("regions"),
        "screenshot_url": None,
        "ssl_certificate_expires_at": found.get("ssl_certificate_expires_at"),
        "domain_expires_at": None,
        "incident_group_id": None,
        "locations": found.get("locations"),
    }
