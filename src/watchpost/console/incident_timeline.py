"""An incident's page as the console shows it: its timeline, merged in time order from its
own entries (started, acknowledged, comments, resolved … : incidents/service.timeline), the
deliveries of its events (who was told and how, and what came of it: the same list as the
API's /incidents/{id}/deliveries) and its escalation policies' runs (steps taken, the next one
and when it is due: delivery/escalation.py's PolicyRun rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels.models import NotificationChannel
from watchpost.delivery import service as deliveries
from watchpost.delivery.models import Delivery, DeliveryEvent
from watchpost.incidents import service
from watchpost.incidents.check_details import shown
from watchpost.incidents.models import Incident
from watchpost.incidents.rendering import INCIDENT
from watchpost.listing import MAX_PER_PAGE, PageRequest
from watchpost.masking import mask_urls
from watchpost.policies.models import Policy, PolicyRun
from watchpost.teams.models import User, team_users
from watchpost.webhooks.models import OutgoingWebhook

EVENT_WORDS: Final = {
    "started": "the start",
    "acknowledged": "the acknowledgement",
    "resolved": "the resolution",
    "reopened": "the reopening",
    "comment": "a comment",
}
"""What a delivery told of (its event), in words."""
ENTRY_TITLES: Final = {
    "started": "Started",
    "acknowledged": "Acknowledged",
    "resolved": "Resolved",
    "reopened": "Reopened",
    "comment": "Comment",
    "check_failed": "Check failed",
    "check_recovered": "Check succeeded",
}
STEP_WORDS: Final = {
    "escalation": "Tell",
    "time_branching": "Branch on the time",
    "metadata_branching": "Branch on the incident's metadata",
    "instructions": "Write the instructions as a comment",
    "resolve_remove": "Resolve or remove the incident",
}
MEMBER_WORDS: Final = {
    "entire_team": "the entire team",
    "user": "person",
    "current_on_call": "whoever is on call",
    "incident_metadata": "the people the incident's metadata names",
    "webhook": "webhook",
    "all_webhook_integrations": "every webhook",
    "notification_channel": "notification channel",
    "all_notification_channels": "every notification channel",
    "pagerduty_integration": "PagerDuty",
    "policy": "escalation policy",
}


@dataclass(frozen=True)
class Entry:
    """One line of the timeline."""

    at: datetime
    kind: str
    title: str
    text: str = ""
    by: str | None = None
    failed: bool = False
    future: bool = False


@dataclass(frozen=True)
class Step:
    number: int
    words: str
    state: str
    """done, next, not reached or — (the run is over)."""
    due: datetime | None = None


@dataclass(frozen=True)
class Run:
    """One escalation policy running for the incident."""

    policy: str
    round: int
    rounds: int
    over: bool
    steps: list[Step]


@dataclass
class Timeline:
    entries: list[Entry] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    more_deliveries: bool = False
    """More deliveries than one page holds: the first MAX_PER_PAGE are shown."""


def _names(rows: Any) -> dict[int, str]:
    return {id_: name for id_, name in rows}


def _target(delivery: Delivery, webhooks: dict[int, str], channels: dict[int, str]) -> str:
    channel = delivery.channel
    if channel == "email":
        return f"E-mail to {delivery.recipient}"
    if channel == "webhook" and delivery.webhook_id is not None:
        return f"Webhook {webhooks.get(delivery.webhook_id, delivery.webhook_id)}"
    if channel == "apprise" and delivery.channel_id is not None:
        return f"Notification channel {channels.get(delivery.channel_id, delivery.channel_id)}"
    return {
        "sms": "SMS",
        "call": "Phone call",
        "pagerduty": "PagerDuty",
        "subscriber": "Status page subscriber",
    }.get(channel, channel)


def _outcome(delivery: Delivery) -> tuple[str, bool]:
    """What came of a delivery, and whether it failed."""
    why = mask_urls(delivery.error or "") or (
        f"status {delivery.status_code}" if delivery.status_code else "no answer"
    )
    if delivery.state == "succeeded":
        return "sent", False
    if delivery.state == "failed":
        return f"failed: {why}", True
    if delivery.state == "cancelled":
        return "cancelled", False
    if delivery.attempts:
        return f"failed, will try again: {why}", True
    return "waiting to be sent", False


async def _deliveries(db: AsyncSession, incident: Incident) -> tuple[list[Entry], bool]:
    paging = PageRequest(page=1, per_page=MAX_PER_PAGE, base_url="", other_params=())
    page = await deliveries.list_told(
        db, subject_type=INCIDENT, subject_id=incident.id, team_id=incident.team_id, paging=paging
    )
    rows: list[tuple[Delivery, DeliveryEvent]] = page.data
    webhook_ids = {d.webhook_id for d, _ in rows if d.webhook_id is not None}
    channel_ids = {d.channel_id for d, _ in rows if d.channel_id is not None}
    webhooks = channels = {}
    if webhook_ids:
        webhooks = _names(
            await db.execute(
                select(OutgoingWebhook.id, OutgoingWebhook.name).where(
                    OutgoingWebhook.id.in_(webhook_ids)
                )
            )
        )
    if channel_ids:
        channels = _names(
            await db.execute(
                select(NotificationChannel.id, NotificationChannel.name).where(
                    NotificationChannel.id.in_(channel_ids)
                )
            )
        )
    entries = []
    for delivery, event in rows:
        outcome, failed = _outcome(delivery)
        entries.append(
            Entry(
                at=delivery.delivered_at or delivery.last_attempt_at or delivery.created_at,
                kind="delivery",
                title=f"{_target(delivery, webhooks, channels)}: {outcome}",
                text=f"About {EVENT_WORDS.get(event.event, event.event)}",
                failed=failed,
            )
        )
    return entries, page.links.get("next") is not None


Names = dict[tuple[str, Any], str]
"""Names of what steps name, by (member type, id): webhooks, people."""


def step_words(step: dict[str, Any], names: Names | None = None) -> str:
    """A policy step in a few words: what it does, to whom, after how long."""
    kind = str(step.get("type") or "")
    words = STEP_WORDS.get(kind, kind)
    if kind == "escalation":
        members = []
        for member in step.get("step_members") or []:
            noun = MEMBER_WORDS.get(str(member.get("type")), str(member.get("type")))
            named = (names or {}).get((str(member.get("type")), member.get("id")))
            named = named or member.get("email") or member.get("id")
            members.append(f"{noun} {named}" if named and " " not in noun else noun)
        words += " " + (", ".join(members) or "nobody")
    if step.get("wait_until_time"):
        words += f", at {step['wait_until_time']} {step.get('wait_until_timezone') or 'UTC'}"
    elif step.get("wait_before"):
        words += f", after {int(step['wait_before'])} s"
    return words


def _run(run: PolicyRun, policy: Policy, incident: Incident, names: Names) -> Run:
    # A run stops for good once someone acknowledges or resolves: its row learns it only
    # when its next step falls due (escalation.escalate), the page says it at once.
    over = run.next_at is None or incident.status != "started"
    steps = []
    for number, step in enumerate(policy.steps):
        if number < run.step or (run.round > 0 and not over and number > run.step):
            state = "done"
        elif number == run.step and not over:
            state = "next"
        elif number == run.step:
            state = "—"
        else:
            state = "not reached"
        due = run.next_at if state == "next" else None
        steps.append(Step(number + 1, step_words(step, names), state, due))
    return Run(policy.name, run.round + 1, policy.repeat_count + 1, over, steps)


async def _member_names(db: AsyncSession, team_id: int, policies: list[Policy]) -> Names:
    """The names of the webhooks and people the policies' steps name (one query each)."""
    wanted: dict[str, set[int]] = {"webhook": set(), "user": set()}
    for policy in policies:
        for step in policy.steps:
            for member in step.get("step_members") or []:
                if member.get("type") in wanted and isinstance(member.get("id"), int):
                    wanted[member["type"]].add(member["id"])
    names: Names = {}
    if wanted["webhook"]:
        hooks = select(OutgoingWebhook.id, OutgoingWebhook.name).where(
            OutgoingWebhook.team_id == team_id, OutgoingWebhook.id.in_(wanted["webhook"])
        )
        names.update((("webhook", id_), name) for id_, name in await db.execute(hooks))
    if wanted["user"]:
        people = (
            team_users(team_id)
            .with_only_columns(User.id, User.email)
            .where(User.id.in_(wanted["user"]))
        )
        names.update((("user", id_), email) for id_, email in await db.execute(people))
    return names


async def _runs(db: AsyncSession, incident: Incident) -> tuple[list[Run], list[Entry]]:
    found = await db.execute(
        select(PolicyRun, Policy)
        .join(Policy, Policy.id == PolicyRun.policy_id)
        .where(PolicyRun.incident_id == incident.id)
        .order_by(PolicyRun.id)
    )
    pairs = list(found.tuples())
    names = await _member_names(db, incident.team_id, [policy for _, policy in pairs])
    runs, entries = [], []
    for run, policy in pairs:
        shown_run = _run(run, policy, incident, names)
        runs.append(shown_run)
        entries.append(
            Entry(run.created_at, "escalation", f"Escalation policy {policy.name} started")
        )
        for step in shown_run.steps:
            if step.due is not None:
                entries.append(
                    Entry(
                        step.due,
                        "next",
                        f"Next: step {step.number} of escalation policy {policy.name}",
                        step.words,
                        future=True,
                    )
                )
    return runs, entries


_ORDER: Final = {"started": 0, "escalation": 2, "delivery": 3, "next": 4}
"""Which comes first of entries made at the same moment (the incident's own in between)."""


async def timeline(db: AsyncSession, incident: Incident) -> Timeline:
    """The incident's whole timeline, oldest first, the next escalation step last."""
    own = []
    for event in await service.timeline(db, incident=incident):
        title = ENTRY_TITLES.get(event.kind, event.kind.replace("_", " ").capitalize())
        # "Acknowledged by ann@…" under "Acknowledged by ann@…" says nothing new.
        text = "" if event.text == f"{title} by {event.by}" else mask_urls(event.text)
        own.append(Entry(event.at, event.kind, title, text, event.by))
    told, more = await _deliveries(db, incident)
    runs, escalations = await _runs(db, incident)
    merged = sorted(
        [*own, *told, *escalations], key=lambda entry: (entry.at, _ORDER.get(entry.kind, 1))
    )
    return Timeline(merged, runs, more)


def check_facts(incident: Incident) -> list[tuple[str, str]]:
    """What the check that opened the incident saw, as the API shows it (check_details)."""
    details = shown(incident.check_details)
    facts: list[tuple[str, str]] = []
    if details["url"]:
        facts.append(("URL", mask_urls(str(details["url"]))))
    if details["http_method"]:
        facts.append(("Method", str(details["http_method"])))
    options = details["response_options"] or {}
    if "status_code" in options:
        facts.append(("Status code", str(options["status_code"])))
    for name, label in (("address", "Address"), ("addresses", "Addresses"), ("banner", "Banner")):
        if name in options:
            facts.append((label, str(options[name])))
    if details["response_content"]:
        facts.append(("Response", str(details["response_content"])[:2000]))
    if details["regions"]:
        facts.append(("Regions", ", ".join(map(str, details["regions"]))))
    if details["ssl_certificate_expires_at"]:
        facts.append(("Certificate expires", str(details["ssl_certificate_expires_at"])))
    return facts
