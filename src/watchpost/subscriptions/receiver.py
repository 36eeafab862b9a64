"""Subscribers as a receiver of the delivery system (delivery/extensions.py).

Events of status_pages/announcements.py and sign-ups (service.py) name the `subscriber`
channel; dispatching makes one delivery per subscriber told (service.targets), which is
claimed, retried and logged as every delivery is. Sending reads the subscriber as it is
then: one that unsubscribed, or never confirmed, is told nothing (its delivery ends failed,
"not sent: …"). A webhook that answers 410 Gone is unsubscribed, as is one whose every
delivery attempt failed for `delivery_disable_after` (5 days unless set: the rule of the
outgoing webhooks; a success ends the streak). Links need
WATCHPOST_PUBLIC_URL (a delivery has no request to build them from).

E-mail addresses stay out of delivery rows (the subscriber row holds its address) and out of
log lines: an SMTP error that quotes the address is stored and logged without it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

import orjson

from watchpost.context import AppContext
from watchpost.delivery import extensions, mail
from watchpost.delivery.claims import Job
from watchpost.delivery.sending import USER_AGENT, Outcome, Request, post
from watchpost.status_pages import announcements
from watchpost.status_pages.models import StatusPage
from watchpost.subscriptions import messages, service, tokens
from watchpost.subscriptions.models import StatusPageSubscriber
from watchpost.webhooks import signing

NO_PUBLIC_URL: Final = "not sent: links need WATCHPOST_PUBLIC_URL, which is not set"
GONE: Final = "not sent: the subscriber has unsubscribed"
UNCONFIRMED: Final = "not sent: the subscriber has not confirmed"
ADDRESS_MASK: Final = "<subscriber address>"


def describe(job: Job) -> str:
    return f"status page subscriber {job.subscriber_id}"


async def _load(ctx: AppContext, job: Job) -> tuple[StatusPageSubscriber, StatusPage] | None:
    async with ctx.db.read_sessions() as session:
        row = await session.get(StatusPageSubscriber, job.subscriber_id)
        page = None if row is None else await session.get(StatusPage, row.status_page_id)
    return None if row is None or page is None else (row, page)


async def send(ctx: AppContext, job: Job, now: datetime) -> Outcome:
    found = await _load(ctx, job) if job.subscriber_id is not None else None
    if found is None:
        return Outcome(error=GONE, final=True)
    row, page = found
    settings = ctx.settings
    page_url = tokens.page_url(settings, page.subdomain)
    if page_url is None:
        return Outcome(error=NO_PUBLIC_URL, final=True)
    company = page.company_name or page.subdomain
    if job.event == service.REQUESTED:
        if now - row.requested_at > service.CONFIRM_VALID_FOR:
            return Outcome(error="not sent: the sign-up has expired", final=True)
        confirm_url = settings.public_base + tokens.CONFIRM_PATH  # type: ignore[operator]
        confirm_url += tokens.seal(ctx.box, "confirm", row.id, row.confirm_nonce)
        if row.kind == service.EMAIL:
            message = messages.confirmation_mail(
                company, sender=settings.mail_from, recipient=row.address, confirm_url=confirm_url
            )
            return _masked(await mail.send(message, settings=settings), row.address)
        body = messages.webhook_confirmation(
            job.payload["status_page"],
            page_url=page_url,
            confirm_url=confirm_url,
            resource_ids=row.pending_resource_ids,
        )
        return await _post(ctx, job, row, body, row.pending_secret_encrypted, now)
    if row.confirmed_at is None:
        return Outcome(error=UNCONFIRMED, final=True)
    unsubscribe = settings.public_base + tokens.UNSUBSCRIBE_PATH  # type: ignore[operator]
    unsubscribe += tokens.seal(ctx.box, "unsubscribe", row.id, row.unsubscribe_nonce)
    links = messages.Links(page=page_url, unsubscribe=unsubscribe)
    if row.kind == service.EMAIL:
        message = messages.notification_mail(
            job.payload, sender=settings.mail_from, recipient=row.address, links=links
        )
        return _masked(await mail.send(message, settings=settings), row.address)
    body = messages.webhook_body(job.payload, links=links)
    return await _post(ctx, job, row, body, row.signing_secret_encrypted, now)


def _masked(outcome: Outcome, address: str) -> Outcome:
    """The outcome without the address in its texts (they are stored and logged)."""
    if outcome.error is None and outcome.excerpt is None:
        return outcome

    def mask(text: str | None) -> str | None:
        if text is None:
            return None
        for spelling in {address, address.lower()}:
            text = text.replace(spelling, ADDRESS_MASK)
        return text

    return Outcome(
        status_code=outcome.status_code,
        duration_ms=outcome.duration_ms,
        excerpt=mask(outcome.excerpt),
        error=mask(outcome.error),
        retry_after=outcome.retry_after,
        final=outcome.final,
    )


async def _post(
    ctx: AppContext,
    job: Job,
    row: StatusPageSubscriber,
    body: dict[str, object],
    secret_encrypted: str | None,
    now: datetime,
) -> Outcome:
    raw = orjson.dumps(body)
    timestamp = int(now.timestamp())
    keys = [] if secret_encrypted is None else [ctx.box.decrypt(secret_encrypted)]
    headers = {"User-Agent": USER_AGENT, "Content-Type": "application/json"}
    headers.update(signing.headers(keys, job.message_id, timestamp, raw))
    request = Request(method="POST", url=row.address, headers=headers, body=raw)
    outcome = await post(request, now=now, timeout=ctx.settings.delivery_timeout)
    if outcome.status_code == 410:
        async with ctx.db.write_sessions() as session, session.begin():
            await service.remove(session, row.id)
        return Outcome(
            status_code=410,
            duration_ms=outcome.duration_ms,
            error="the endpoint answered 410 Gone: unsubscribed",
            final=True,
        )
    if outcome.ok and row.failing_since is None:
        return outcome
    limit = ctx.settings.delivery_disable_after
    async with ctx.db.write_sessions() as session, session.begin():
        removed = await service.note_attempt(session, row, ok=outcome.ok, now=now, limit=limit)
    if removed:
        return Outcome(
            status_code=outcome.status_code,
            duration_ms=outcome.duration_ms,
            excerpt=outcome.excerpt,
            error=f"every delivery failed for {limit / 86400:g} days: unsubscribed",
            final=True,
        )
    return outcome


RECEIVER: Final = extensions.Receiver(
    channel=announcements.CHANNEL,
    targets=service.targets,
    send=send,
    describe=describe,
    due=announcements.due,
    waiting=announcements.WAITING,
)


def install() -> None:
    """Make subscribers a receiver of the delivery system (where the app and the worker are
    built)."""
    extensions.register(RECEIVER)
