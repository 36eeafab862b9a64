"""A public page in the Atlassian Statuspage public API format (`/api/v2/*.json`), the JSON
that status widgets and aggregators already read.

Mapping (docs/api.md, "Public status page feeds and JSON"):

- page: id, name (company_name), url (the page's public address), time_zone (IANA),
  updated_at (the latest change to anything shown).
- components: one per resource (id = the resource's id); a section with a name is a group
  component (id `section-<id>`) listing its resources, which name it in `group_id`; the
  resources of an unnamed section are ungrouped. Statuses: operational → operational,
  degraded → degraded_performance, downtime → major_outage, maintenance →
  under_maintenance, not_monitored → operational (the format has no "unknown"). A group is
  its worst resource, partial_outage when some but not all of its monitored resources are
  down.
- status: none / minor (something degraded) / major (something down: partial outage) /
  critical (every monitored resource down: major outage) / maintenance.
- incidents: manual reports; scheduled_maintenances: maintenance reports; their
  incident_updates are the published status updates, newest first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Final
from zoneinfo import ZoneInfo

from watchpost.clock import isoformat_ms
from watchpost.public_pages import view
from watchpost.public_pages.snapshot import (
    ShownReport,
    ShownResource,
    ShownSection,
    Snapshot,
    affected,
)
from watchpost.status_pages.availability import (
    DEGRADED,
    DOWNTIME,
    MAINTENANCE,
    NOT_MONITORED,
    OPERATIONAL,
)
from watchpost.status_pages.report_states import (
    COMPLETED,
    IN_PROGRESS,
    RESOLVED,
    SCHEDULED,
    aggregate_state,
    report_state,
)
from watchpost.timezones import zone_of

COMPONENT_STATUS: Final[dict[str, str]] = {
    OPERATIONAL: "operational",
    DEGRADED: "degraded_performance",
    DOWNTIME: "major_outage",
    MAINTENANCE: "under_maintenance",
    NOT_MONITORED: "operational",
    RESOLVED: "operational",
}
"""availability.py's (and an affected resource's) status → a Statuspage component status."""
_COMPONENT_ORDER: Final = (
    "major_outage",
    "partial_outage",
    "degraded_performance",
    "under_maintenance",
    "operational",
)
INDICATORS: Final[dict[str, str]] = {
    "none": "All Systems Operational",
    "minor": "Minor Service Outage",
    "major": "Partial System Outage",
    "critical": "Major System Outage",
    "maintenance": "Service Under Maintenance",
}
"""Statuspage's status.indicator → its description."""
IMPACT: Final[dict[str, str]] = {
    DOWNTIME: "major",
    DEGRADED: "minor",
    MAINTENANCE: "maintenance",
    OPERATIONAL: "none",
}
"""A report's worst status → an incident's impact."""
INCIDENTS_SHOWN: Final = 50
"""incidents.json and scheduled-maintenances.json list the newest 50, as Statuspage does."""


INDICATOR_OF_STATE: Final[dict[str, str]] = {
    view.STATE_OPERATIONAL: "none",
    view.STATE_DEGRADED: "minor",
    view.STATE_PARTIAL: "major",
    view.STATE_MAJOR: "critical",
    view.STATE_MAINTENANCE: "maintenance",
}
"""The page's overall state, as its HTML shows it (view.overall_state) → the indicator."""


def indicator(snapshot: Snapshot) -> str:
    """The page's status indicator: its overall state in Statuspage's words."""
    return INDICATOR_OF_STATE[view.overall_state(r.status for r in snapshot.resources)]


def page_info(snapshot: Snapshot, url: str) -> dict[str, Any]:
    page = snapshot.page
    zone = zone_of(page.timezone) or ZoneInfo("UTC")
    return {
        "id": str(page.id),
        "name": page.company_name,
        "url": url,
        "time_zone": zone.key,
        "updated_at": isoformat_ms(snapshot.updated_at),
    }


def status_info(snapshot: Snapshot) -> dict[str, str]:
    found = indicator(snapshot)
    return {"indicator": found, "description": INDICATORS[found]}


def _component(
    shown: ShownResource, *, page_id: str, position: int, group_id: str | None
) -> dict[str, Any]:
    row = shown.row
    return {
        "id": str(row.id),
        "name": shown.name,
        "status": COMPONENT_STATUS[shown.status],
        "created_at": row.created_at,
        "updated_at": row.updated_at,
        "position": position,
        "description": row.explanation or None,
        "showcase": True,
        "start_date": None,
        "group_id": group_id,
        "page_id": page_id,
        "group": False,
        "only_show_if_degraded": False,
    }


def group_status(statuses: Sequence[str]) -> str:
    """A group component's status from its resources' (availability.py) statuses."""
    mapped = {COMPONENT_STATUS[s] for s in statuses}
    worst = next((s for s in _COMPONENT_ORDER if s in mapped), "operational")
    monitored = [s for s in statuses if s != NOT_MONITORED]
    if worst == "major_outage" and any(s != DOWNTIME for s in monitored):
        return "partial_outage"
    return worst


def _group(section: ShownSection, *, page_id: str, position: int) -> dict[str, Any]:
    found = section.section
    return {
        "id": f"section-{found.id}",
        "name": found.name,
        "status": group_status([r.status for r in section.resources]),
        "created_at": isoformat_ms(found.created_at),
        "updated_at": isoformat_ms(found.updated_at),
        "position": position,
        "description": None,
        "showcase": False,
        "start_date": None,
        "group_id": None,
        "page_id": page_id,
        "group": True,
        "only_show_if_degraded": False,
        "components": [str(r.row.id) for r in section.resources],
    }


def components(snapshot: Snapshot) -> list[dict[str, Any]]:
    """Every component in page order: a named section's group, then its resources."""
    page_id = str(snapshot.page.id)
    found: list[dict[str, Any]] = []
    for section in snapshot.sections:
        group_id = None
        if section.section.name:
            group_id = f"section-{section.section.id}"
            found.append(_group(section, page_id=page_id, position=len(found) + 1))
        for shown in section.resources:
            found.append(
                _component(shown, page_id=page_id, position=len(found) + 1, group_id=group_id)
            )
    return found


def update_status(report: ShownReport, at: int) -> str:
    """An update's status in Statuspage's words: a manual report's update is `resolved`
    when it resolves every affected resource, else `investigating` (the first) or
    `identified`; a maintenance's follows the report's window at the time of the update."""
    update = report.updates[at]
    if report.report.report_type == MAINTENANCE:
        if update.published_at < report.report.starts_at:
            return "scheduled"
        ends = report.report.ends_at
        return "completed" if ends is not None and update.published_at >= ends else "in_progress"
    if aggregate_state(update.affected_resources) == OPERATIONAL:
        return "resolved"
    return "investigating" if at == 0 else "identified"


def _affected_components(
    report: ShownReport, at: int, names: dict[int, str]
) -> list[dict[str, str]]:
    """What the update changed: each affected resource's status before and after it."""
    before: dict[int, str] = {}
    if at > 0:
        before = dict(affected(report.updates[at - 1].affected_resources))
    found: list[dict[str, str]] = []
    for rid, status in affected(report.updates[at].affected_resources):
        if rid not in names:
            continue
        found.append(
            {
                "code": str(rid),
                "name": names[rid],
                "old_status": COMPONENT_STATUS.get(before.get(rid, OPERATIONAL), "operational"),
                "new_status": COMPONENT_STATUS.get(status, "operational"),
            }
        )
    return found


def _report_status(report: ShownReport, snapshot: Snapshot) -> str:
    state = report_state(report.report, snapshot.now)
    if report.report.report_type == MAINTENANCE:
        return {SCHEDULED: "scheduled", IN_PROGRESS: "in_progress"}.get(state, "completed")
    if state == RESOLVED:
        return "resolved"
    return "identified" if len(report.updates) > 1 else "investigating"


def _ended(report: ShownReport, snapshot: Snapshot) -> datetime:
    """When a resolved (or completed) report ended: its window's end, or the update that
    resolved it, whichever came first."""
    found = report.report
    ends = [found.ends_at] if found.ends_at is not None and found.ends_at <= snapshot.now else []
    if found.report_type != MAINTENANCE and found.resolved and report.updates:
        ends.append(report.updates[-1].published_at)
    return min(ends, default=found.updated_at)


def _worst_ever(report: ShownReport) -> str:
    """The worst status any of its updates (or the report itself) gave a resource."""
    entries = [e for u in report.updates for e in u.affected_resources]
    return aggregate_state([*entries, *report.report.affected_resources])


def incident(
    report: ShownReport, snapshot: Snapshot, report_url: str, shown: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    """A report as a Statuspage incident (or scheduled maintenance); `shown`: the page's
    resource components by id."""
    found = report.report
    names = {rid: str(component["name"]) for rid, component in shown.items()}
    page_id, rid = str(snapshot.page.id), str(found.id)
    updates = [
        {
            "id": str(update.id),
            "status": update_status(report, at),
            "body": update.message,
            "incident_id": rid,
            "created_at": isoformat_ms(update.created_at),
            "updated_at": isoformat_ms(update.updated_at),
            "display_at": isoformat_ms(update.published_at),
            "affected_components": _affected_components(report, at, names),
            "deliver_notifications": update.notify_subscribers,
            "custom_tweet": None,
            "tweet_id": None,
        }
        for at, update in enumerate(report.updates)
    ]
    updates.reverse()
    status = _report_status(report, snapshot)
    resolved_at = None
    if status in ("resolved", "completed"):
        resolved_at = isoformat_ms(_ended(report, snapshot))
    named = [shown.get(rid) for rid, _ in affected(found.affected_resources)]
    body: dict[str, Any] = {
        "id": rid,
        "name": found.title,
        "status": status,
        "created_at": isoformat_ms(found.created_at),
        "updated_at": isoformat_ms(found.updated_at),
        "monitoring_at": None,
        "resolved_at": resolved_at,
        "impact": IMPACT[_worst_ever(report)],
        "shortlink": report_url,
        "started_at": isoformat_ms(found.starts_at),
        "page_id": page_id,
        "incident_updates": updates,
        "components": [c for c in named if c is not None],
    }
    if found.report_type == MAINTENANCE:
        body["impact"] = "maintenance"
        body["scheduled_for"] = isoformat_ms(found.starts_at)
        body["scheduled_until"] = isoformat_ms(found.ends_at) if found.ends_at else None
    return body


def _by_id(snapshot: Snapshot) -> dict[int, dict[str, Any]]:
    return {int(c["id"]): c for c in components(snapshot) if not c["group"]}


def _of_type(
    snapshot: Snapshot, maintenance: bool, statuses: Iterable[str] | None = None
) -> list[ShownReport]:
    wanted = set(statuses) if statuses is not None else None
    found = []
    for report in snapshot.reports:
        if (report.report.report_type == MAINTENANCE) != maintenance:
            continue
        if wanted is not None and report_state(report.report, snapshot.now) not in wanted:
            continue
        found.append(report)
    return found[:INCIDENTS_SHOWN]


def incidents(
    snapshot: Snapshot, urls: ReportUrls, *, unresolved: bool = False
) -> list[dict[str, Any]]:
    states = (SCHEDULED, IN_PROGRESS) if unresolved else None
    shown = _by_id(snapshot)
    return [
        incident(r, snapshot, urls(r.report.id), shown) for r in _of_type(snapshot, False, states)
    ]


def maintenances(
    snapshot: Snapshot, urls: ReportUrls, *, states: Iterable[str] | None = None
) -> list[dict[str, Any]]:
    shown = _by_id(snapshot)
    return [
        incident(r, snapshot, urls(r.report.id), shown) for r in _of_type(snapshot, True, states)
    ]


class ReportUrls:
    """A report's public address, under the page's."""

    def __init__(self, page_url: str) -> None:
        self.page_url = page_url.rstrip("/")

    def __call__(self, report_id: int) -> str:
        return f"{self.page_url}/reports/{report_id}"


UPCOMING: Final = (SCHEDULED,)
ACTIVE: Final = (IN_PROGRESS,)
OPEN_MAINTENANCE: Final = (SCHEDULED, IN_PROGRESS)
DONE: Final = (COMPLETED,)


def document(name: str, snapshot: Snapshot, page_url: str) -> dict[str, Any]:
    """The body of `/api/v2/<name>.json`."""
    urls = ReportUrls(page_url)
    body: dict[str, Any] = {"page": page_info(snapshot, page_url)}
    if name == "summary":
        body["components"] = components(snapshot)
        body["incidents"] = incidents(snapshot, urls, unresolved=True)
        body["scheduled_maintenances"] = maintenances(snapshot, urls, states=OPEN_MAINTENANCE)
        body["status"] = status_info(snapshot)
    elif name == "status":
        body["status"] = status_info(snapshot)
    elif name == "components":
        body["components"] = components(snapshot)
    elif name == "incidents":
        body["incidents"] = incidents(snapshot, urls)
    elif name == "incidents/unresolved":
        body["incidents"] = incidents(snapshot, urls, unresolved=True)
    elif name == "scheduled-maintenances":
        body["scheduled_maintenances"] = maintenances(snapshot, urls)
    elif name == "scheduled-maintenances/upcoming":
        body["scheduled_maintenances"] = maintenances(snapshot, urls, states=UPCOMING)
    elif name == "scheduled-maintenances/active":
        body["scheduled_maintenances"] = maintenances(snapshot, urls, states=ACTIVE)
    else:
        raise KeyError(name)
    return body


DOCUMENTS: Final = (
    "summary",
    "status",
    "components",
    "incidents",
    "incidents/unresolved",
    "scheduled-maintenances",
    "scheduled-maintenances/upcoming",
    "scheduled-maintenances/active",
)
"""The documents served under a page's /api/v2/ (each + `.json`)."""
