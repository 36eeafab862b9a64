"""Claiming due deliveries: a lease per delivery, so no two workers send the same attempt.

As the check engine's claims: `FOR UPDATE SKIP LOCKED` on PostgreSQL, `BEGIN IMMEDIATE` on
SQLite. A lease lasts the request's timeout plus a margin; a worker that dies between claim
and send leaves it to expire, and another worker sends the delivery again (at least once).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, exists, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels.models import NotificationChannel
from watchpost.db.base import UTCDateTime
from watchpost.delivery import extensions
from watchpost.delivery.models import Delivery, DeliveryEvent
from watchpost.oncall.models import OnCallCalendar
from watchpost.pagerduty.models import PagerDutyIntegration
from watchpost.policies.models import PolicyRun
from watchpost.webhooks.models import CustomWebhookTemplate, OutgoingWebhook


@dataclass(frozen=True)
class Job:
    """One leased delivery with what sending it needs (secrets still encrypted): a webhook's
    settings, or an e-mail's recipient."""

    delivery_id: int
    team_id: int
    attempts: int
    """Attempts made before this one."""
    channel: str
    recipient: str | None
    channel_id: int | None
    channel_url_encrypted: str | None
    event_id: int
    trigger_type: str
    event: str
    subject_id: int
    payload: dict[str, Any]
    webhook_id: int | None
    url: str | None
    disabled_reason: str | None
    signing_secret_encrypted: str | None
    previous_secret_encrypted: str | None
    previous_secret_expires_at: datetime | None
    http_method: str | None
    auth_username: str | None
    auth_password_encrypted: str | None
    headers_template: list[dict[str, str]] | None
    body_template: str | None
    pagerduty_key: str | None
    pagerduty_severity: str | None
    subscriber_id: int | None = None
    """The status page subscriber of a `subscriber` delivery."""

    @property
    def message_id(self) -> str:
        """Standard Webhooks' `webhook-id`: one per event, the same on every attempt and for
        every webhook, so a receiver can drop what it has seen."""
        return f"msg_{self.event_id}"


_JOB_COLUMNS = (
    Delivery.id,
    Delivery.team_id,
    Delivery.attempts,
    Delivery.channel,
    Delivery.recipient,
    Delivery.channel_id,
    NotificationChannel.url_encrypted,
    DeliveryEvent.id,
    DeliveryEvent.trigger_type,
    DeliveryEvent.event,
    DeliveryEvent.subject_id,
    DeliveryEvent.payload,
    OutgoingWebhook.id,
    OutgoingWebhook.url,
    OutgoingWebhook.disabled_reason,
    OutgoingWebhook.signing_secret_encrypted,
    OutgoingWebhook.previous_secret_encrypted,
    OutgoingWebhook.previous_secret_expires_at,
    CustomWebhookTemplate.http_method,
    CustomWebhookTemplate.auth_username,
    CustomWebhookTemplate.auth_password_encrypted,
    CustomWebhookTemplate.headers_template,
    CustomWebhookTemplate.body_template,
    PagerDutyIntegration.key,
    PagerDutyIntegration.severity,
    Delivery.subscriber_id,
)


def job_query() -> Any:
    return (
        select(*_JOB_COLUMNS)
        .join(DeliveryEvent, DeliveryEvent.id == Delivery.event_id)
        .outerjoin(OutgoingWebhook, OutgoingWebhook.id == Delivery.webhook_id)
        .outerjoin(NotificationChannel, NotificationChannel.id == Delivery.channel_id)
        .outerjoin(PagerDutyIntegration, PagerDutyIntegration.id == Delivery.pagerduty_id)
        .outerjoin(
            CustomWebhookTemplate,
            CustomWebhookTemplate.id == OutgoingWebhook.custom_webhook_template_id,
        )
    )


def jobs_from(rows: Any) -> list[Job]:
    return [Job(*row) for row in rows]


async def claim(
    session: AsyncSession, *, owner: str, now: datetime, until: datetime, limit: int
) -> list[Job]:
    """Lease up to `limit` due deliveries to `owner` until `until`, earliest due first.
    Call inside a write transaction."""
    ids = list(
        (
            await session.execute(
                select(Delivery.id)
                .where(
                    Delivery.state == "pending",
                    Delivery.next_attempt_at <= now,
                    or_(Delivery.lease_expires_at.is_(None), Delivery.lease_expires_at < now),
                )
                .order_by(Delivery.next_attempt_at, Delivery.id)
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
        ).scalars()
    )
    if not ids:
        return []
    await session.execute(
        update(Delivery)
        .where(Delivery.id.in_(ids))
        .values(lease_owner=owner, lease_expires_at=until)
        .execution_options(synchronize_session=False)
    )
    rows = await session.execute(
        job_query().where(Delivery.id.in_(ids)).order_by(Delivery.next_attempt_at, Delivery.id)
    )
    return jobs_from(rows)


_NOW = bindparam("due_now", type_=UTCDateTime())
_WAITING = select(
    exists().where(DeliveryEvent.dispatched_at.is_(None)),
    exists().where(
        Delivery.state == "pending",
        Delivery.next_attempt_at <= _NOW,
        or_(Delivery.lease_expires_at.is_(None), Delivery.lease_expires_at < _NOW),
    ),
    exists().where(PolicyRun.next_at <= _NOW),
    exists().where(OnCallCalendar.next_check_at <= _NOW),
)
"""Built once: what an idle pass asks, in one round trip."""


@dataclass(frozen=True)
class Waiting:
    undispatched: bool
    """An event waits to be dispatched."""
    due: bool
    """A delivery is due."""
    steps_due: bool
    """An escalation policy's step is due."""
    calendars_due: bool
    """An on-call calendar is due a look at who is on call."""
    receivers_due: bool = False
    """A registered receiver has events to make (delivery/extensions.py)."""


_STATEMENTS: dict[int, Any] = {}


def _waiting_statement() -> Any:
    """_WAITING and the registered receivers' EXISTS clauses, built once per set."""
    clauses = [r.waiting for r in extensions.receivers() if r.waiting is not None]
    key = len(clauses)
    if key not in _STATEMENTS:
        _STATEMENTS[key] = _WAITING.add_columns(*clauses) if clauses else _WAITING
    return _STATEMENTS[key]


async def work_waiting(session: AsyncSession, *, now: datetime) -> Waiting:
    """What waits at `now`: one statement of four indexed EXISTS (and one per receiver that
    makes events of its own)."""
    row = (await session.execute(_waiting_statement(), {"due_now": now})).one()
    values = [bool(value) for value in row]
    undispatched, due, steps_due, calendars_due = values[:4]
    return Waiting(undispatched, due, steps_due, calendars_due, receivers_due=any(values[4:]))
