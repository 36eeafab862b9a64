"""The console's main navigation: every section one click away on every page, in groups.

Pages say which entry they belong to by the `section` they render with; the entry whose
path is the page's own is marked `aria-current="page"`, the section of a deeper page
`aria-current="true"`. Entries a role could not open are not shown (the routes refuse them
anyway)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from watchpost.people.roles import Action


@dataclass(frozen=True)
class Entry:
    key: str
    label: str
    path: str
    needs: Action = Action.READ


@dataclass(frozen=True)
class Group:
    label: str
    entries: tuple[Entry, ...]


NAVIGATION: Final = (
    Group(
        "Monitoring",
        (
            Entry("overview", "Overview", "/"),
            Entry("incidents", "Incidents", "/incidents"),
            Entry("monitors", "Monitors", "/monitors"),
            Entry("heartbeats", "Heartbeats", "/heartbeats"),
        ),
    ),
    Group(
        "Alerting",
        (
            Entry("policies", "Escalation policies", "/policies"),
            Entry("oncall", "On-call", "/on-call"),
            Entry("webhooks", "Webhooks", "/webhooks"),
            Entry("channels", "Notification channels", "/channels"),
            Entry("integrations", "Integrations", "/integrations"),
            Entry("maintenance", "Maintenance windows", "/maintenance-windows"),
        ),
    ),
    Group("Status pages", (Entry("status_pages", "Status pages", "/status-pages"),)),
    Group(
        "Logs",
        (
            Entry("logs", "Logs", "/logs"),
            Entry("sources", "Sources", "/sources"),
            Entry("metrics", "Metrics", "/metrics"),
        ),
    ),
    Group(
        "Settings",
        (
            Entry("team", "Team", "/team", Action.MANAGE_PEOPLE),
            Entry("locations", "Locations", "/locations"),
            Entry("account", "Account", "/account"),
        ),
    ),
)
