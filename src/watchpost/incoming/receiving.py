"""What a request to an incoming webhook's URL does: its rules decide whether it resolves,
acknowledges or starts the webhook's incident (one open at a time). No HTTP here.

A request is judged first (`judged`: the rules read without a lock, matched on the matching
threads of patterns.py), then applied in a short write transaction (`receive`): no lock is
held, and the event loop is never busy, while a user's regular expression runs. A request
that arrives while its webhook's rules change is judged by the rules it was read with."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any, Final

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.incidents.transitions import Change, apply, open_incident_for, start
from watchpost.incoming import patterns
from watchpost.incoming.matching import JUDGED, Received, Verdict, clean, judge
from watchpost.incoming.models import IncomingWebhook

SAMPLE_LIMIT: Final = 4096
"""Characters of the last request's body, headers and query string kept as samples."""
HIDDEN_HEADERS: Final = frozenset(
    {"authorization", "proxy-authorization", "cookie", "x-api-key", "x-auth-token"}
)
"""Credentials a sender may add: never kept in the samples."""
NAME_LIMIT: Final = 255
CAUSE_LIMIT: Final = 10_000


class Outcome(enum.StrEnum):
    UNKNOWN = "unknown"
    IGNORED = "ignored"
    STARTED = "started"
    ACKNOWLEDGED = "acknowledged"
    RESOLVED = "resolved"


def _samples(received: Received) -> dict[str, str]:
    headers = "\n".join(
        f"{name}: {value}" for name, value in received.headers.items() if name not in HIDDEN_HEADERS
    )
    query = "&".join(f"{name}={value}" for name, value in received.query.items())
    return {
        "sample_body": clean(received.text[:SAMPLE_LIMIT]),
        "sample_headers": clean(headers[:SAMPLE_LIMIT]),
        "sample_query_string": clean(query[:SAMPLE_LIMIT]),
    }


def _metadata(verdict: Verdict, stage: str, current: dict[str, Any]) -> dict[str, Any]:
    """The incident's metadata with this stage's alert id and other fields added."""
    found = dict(current)
    for key, value in verdict.fields[stage].items():
        found[key] = [value[:NAME_LIMIT]]
    return found


def _same_alert(verdict: Verdict, stage: str, incident: Any) -> bool:
    """False when the request names an alert id and the open incident another one."""
    sent = verdict.alert_ids[stage]
    if sent is None:
        return True
    key, value = sent
    held = (incident.metadata_ or {}).get(key)
    return not held or value[:NAME_LIMIT] in held


async def judged_settings(session: AsyncSession, *, token: str) -> dict[str, Any] | None:
    """The settings `judge` reads of the webhook with this token (None: there is none)."""
    columns = [getattr(IncomingWebhook, name) for name in JUDGED]
    row = (await session.execute(select(*columns).where(IncomingWebhook.token == token))).first()
    return None if row is None else dict(row._mapping)


async def judged(webhook: dict[str, Any], received: Received) -> Verdict:
    """What the request makes of the webhook's rules and fields, matched off the event loop."""
    return await patterns.off_loop(lambda: judge(webhook, received))


async def receive(
    session: AsyncSession, *, token: str, received: Received, verdict: Verdict, now: datetime
) -> Outcome:
    """Apply one judged request to the webhook with this token (in the caller's
    transaction)."""
    # The UPDATE first: it takes the row's lock (the database's, on SQLite), so two
    # requests at once never both find no open incident and start two.
    changed = await session.execute(
        update(IncomingWebhook).where(IncomingWebhook.token == token).values(**_samples(received))
    )
    if not getattr(changed, "rowcount", 0):
        return Outcome.UNKNOWN
    webhook = await session.scalar(
        select(IncomingWebhook)
        .where(IncomingWebhook.token == token)
        .execution_options(populate_existing=True)
    )
    if webhook is None or webhook.paused:
        return Outcome.IGNORED
    open_one = await open_incident_for(session, incoming_webhook_id=webhook.id)
    by = webhook.name[:320]
    for stage, change in (("resolved", Change.RESOLVED), ("acknowledged", Change.ACKNOWLEDGED)):
        if not verdict.holds[stage]:
            continue
        if open_one is None or not _same_alert(verdict, stage, open_one):
            return Outcome.IGNORED
        if change is Change.ACKNOWLEDGED and open_one.acknowledged_at is not None:
            return Outcome.IGNORED
        open_one.metadata_ = _metadata(verdict, stage, open_one.metadata_ or {})
        text = f"{stage.capitalize()} by a request to the incoming webhook {by}"
        await apply(session, open_one, change, at=now, by=by, text=text)
        return Outcome(change.value)
    if open_one is not None:
        return Outcome.IGNORED
    if not verdict.holds["started"]:
        return Outcome.IGNORED
    name = verdict.title or webhook.name
    cause = verdict.cause or (
        f"A request to the incoming webhook {webhook.name} started an incident"
    )
    await start(
        session,
        team_id=webhook.team_id,
        name=name[:NAME_LIMIT],
        cause=cause[:CAUSE_LIMIT],
        at=now,
        metadata=_metadata(verdict, "started", {}),
        incoming_webhook_id=webhook.id,
    )
    return Outcome.STARTED
