"""Sending an incident event to PagerDuty's Events API v2: one alert per incident (its
`dedup_key`), triggered on a start or reopening, acknowledged and resolved with it.

PagerDuty answers 202 when it accepted the event; anything else is a failure retried like a
webhook's (429 with its Retry-After).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import orjson

from watchpost.delivery.claims import Job
from watchpost.delivery.sending import USER_AGENT, Outcome, Request, post

ACTIONS: Final = {
    "started": "trigger",
    "reopened": "trigger",
    "acknowledged": "acknowledge",
    "resolved": "resolve",
}
"""An incident event → PagerDuty's event_action."""
SUMMARY_CHARS: Final = 1024
"""PagerDuty's limit on an alert's summary."""


def dedup_key(incident_id: int | str) -> str:
    return f"watchpost-incident-{incident_id}"


def event_body(job: Job) -> dict[str, Any] | None:
    """The Events API v2 body of the job's incident event, or None for an event PagerDuty
    has no action for."""
    action = ACTIONS.get(job.event)
    if action is None or job.pagerduty_key is None:
        return None
    data = job.payload["data"]
    body: dict[str, Any] = {
        "routing_key": job.pagerduty_key,
        "event_action": action,
        "dedup_key": dedup_key(data["id"]),
    }
    if action == "trigger":
        attributes = data["attributes"]
        about = next(
            (f"{kind} {ref['data']['id']}" for kind, ref in data.get("relationships", {}).items()),
            "reported by hand",
        )
        body["payload"] = {
            "summary": f"{attributes['name']}: {attributes.get('cause') or ''}"[:SUMMARY_CHARS],
            "source": f"Watchpost ({about})",
            "severity": job.pagerduty_severity or "critical",
            "timestamp": attributes.get("started_at"),
            "custom_details": {
                "incident_id": data["id"],
                "team": attributes.get("team_name"),
                "metadata": attributes.get("metadata") or {},
            },
        }
        body["client"] = "Watchpost"
    return body


async def send(job: Job, *, events_url: str, now: datetime, timeout: float) -> Outcome:
    """One attempt to hand the incident event to PagerDuty."""
    if job.pagerduty_key is None:
        return Outcome(error="not sent: the PagerDuty integration was deleted", final=True)
    body = event_body(job)
    if body is None:
        return Outcome(error=f"not sent: PagerDuty has no action for {job.event!r}", final=True)
    request = Request(
        method="POST",
        url=events_url,
        headers={"Content-Type": "application/json", "User-Agent": USER_AGENT},
        body=orjson.dumps(body),
    )
    return await post(request, now=now, timeout=timeout)
