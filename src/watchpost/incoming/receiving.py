"""What a request to an incoming webhook's URL does: its rules decide whether it resolves,
acknowledges or starts the webhook's incident (one open at a time). No HTTP here."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any, Final

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.incidents.transitions import Change, apply, open_incident_for, start
from watchpost.incoming.matching import Received, clean, extract, field_key, satisfied
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


def _metadata(
    webhook: IncomingWebhook, stage: str, received: Received, current: dict[str, Any]
) -> dict[str, Any]:
    """The incident's metadata with this stage's alert id and other fields added."""
    found = dict(current)
    specs = [
        getattr(webhook, f"{stage}_alert_id_field"),
        *getattr(webhook, f"other_{stage}_fields"),
    ]
    for spec in specs:
        value = extract(spec, received)
        if spec is not None and value is not None:
            found[field_key(spec)] = [value[:NAME_LIMIT]]
    return found


def _same_alert(webhook: IncomingWebhook, stage: str, received: Received, incident: Any) -> bool:
    """False when the request names an alert id and the open incident another one."""
    spec = getattr(webhook, f"{stage}_alert_id_field")
    sent = extract(spec, received)
    if spec is None or sent is None:
        return True
    held = (incident.metadata_ or {}).get(field_key(spec))
    return not held or sent[:NAME_LIMIT] in held


async def receive(
    session: AsyncSession, *, token: str, received: Received, now: datetime
) -> Outcome:
    """Apply one request to the webhook with this token (in the caller's transaction)."""
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
        rules = getattr(webhook, f"{stage}_rules")
        if not satisfied(getattr(webhook, f"{stage}_rule_type"), rules, received):
            continue
        if open_one is None or not _same_alert(webhook, stage, received, open_one):
            return Outcome.IGNORED
        if change is Change.ACKNOWLEDGED and open_one.acknowledged_at is not None:
            return Outcome.IGNORED
        open_one.metadata_ = _metadata(webhook, stage, received, open_one.metadata_ or {})
        text = f"{stage.capitalize()} by a request to the incoming webhook {by}"
        await apply(session, open_one, change, at=now, by=by, text=text)
        return Outcome(change.value)
    if open_one is not None:
        return Outcome.IGNORED
    starts = webhook.started_rule_type == "unused" or satisfied(
        webhook.started_rule_type, webhook.started_rules, received
    )
    if not starts:
        return Outcome.IGNORED
    name = extract(webhook.title_field, received) or webhook.name
    cause = extract(webhook.cause_field, received) or (
        f"A request to the incoming webhook {webhook.name} started an incident"
    )
    await start(
        session,
        team_id=webhook.team_id,
        name=name[:NAME_LIMIT],
        cause=cause[:CAUSE_LIMIT],
        at=now,
        metadata=_metadata(webhook, "started", received, {}),
        incoming_webhook_id=webhook.id,
    )
    return Outcome.STARTED
