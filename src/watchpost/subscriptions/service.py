"""Signing up, confirming, unsubscribing, and who an event is for.

A sign-up answers the same whatever the address's standing (new, waiting for confirmation,
confirmed): it records a `subscription_requested` event, whose delivery sends the
confirmation, at most once per REQUEST_INTERVAL per address and page (a repeated sign-up
inside it changes nothing and sends nothing). Nothing is told to a subscriber before it
confirms.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import SecretBox
from watchpost.db.queries import check_held
from watchpost.delivery import outbox
from watchpost.delivery.models import Delivery
from watchpost.errors import InvalidRequest, Problem
from watchpost.status_pages.announcements import CHANNEL, payload_resources
from watchpost.status_pages.models import StatusPage, StatusPageResource
from watchpost.subscriptions import tokens
from watchpost.subscriptions.models import StatusPageSubscriber
from watchpost.validation import check_destination_url, parse_id
from watchpost.webhooks import signing

EMAIL: Final = "email"
WEBHOOK: Final = "webhook"
REQUESTED: Final = "subscription_requested"
REQUEST_INTERVAL: Final = timedelta(minutes=10)
"""A confirmation goes to one address of a page at most once in this time."""
CONFIRM_VALID_FOR: Final = timedelta(days=7)
MAX_RESOURCES: Final = 100
MAX_EMAIL: Final = 254
MAX_URL: Final = 2048
_EMAIL = re.compile(
    r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}"
)
"""An address of the usual shape (ASCII; no quoted local parts, no IP literals): nothing
that could name a second recipient or break a header."""


@dataclass(frozen=True)
class SignUp:
    kind: str
    address: str
    resource_ids: list[int]


def _one(fields: Mapping[str, list[str]], name: str) -> str | None:
    values = [v for v in fields.get(name, []) if v.strip()]
    return values[-1].strip() if values else None


def _resource_ids(fields: Mapping[str, list[str]], problems: list[Problem]) -> list[int]:
    raw = [part.strip() for v in fields.get("resource_ids", []) for part in v.split(",")]
    ids: list[int] = []
    for text in (part for part in raw if part):
        rid = parse_id(text)
        if rid is None:
            problems.append(("resource_ids", f"resource_ids: {text[:40]!r} is no id"))
        elif rid not in ids:
            ids.append(rid)
    if len(ids) > MAX_RESOURCES:
        problems.append(("resource_ids", f"resource_ids names at most {MAX_RESOURCES} resources"))
    return ids


def parse_sign_up(fields: Mapping[str, list[str]]) -> SignUp:
    """The form's sign-up: `email` or `webhook_url` (one of them), `resource_ids`."""
    problems: list[Problem] = []
    email, url = _one(fields, "email"), _one(fields, "webhook_url")
    ids = _resource_ids(fields, problems)
    if (email is None) == (url is None):
        problems.append((None, "send either email or webhook_url"))
    elif email is not None and (len(email) > MAX_EMAIL or not _EMAIL.fullmatch(email)):
        problems.append(("email", "email must be an e-mail address (name@example.com)"))
    elif url is not None:
        try:
            if len(url) > MAX_URL:
                raise ValueError(f"must be at most {MAX_URL} characters")
            url = check_destination_url(url)
        except ValueError as exc:
            problems.append(("webhook_url", f"webhook_url {exc}"))
    if problems:
        raise InvalidRequest(problems)
    if email is not None:
        return SignUp(EMAIL, email, ids)
    assert url is not None
    return SignUp(WEBHOOK, url, ids)


async def _check_resources(session: AsyncSession, page: StatusPage, ids: list[int]) -> None:
    if not ids:
        return
    known = set(
        (
            await session.scalars(
                select(StatusPageResource.id).where(
                    StatusPageResource.status_page_id == page.id, StatusPageResource.id.in_(ids)
                )
            )
        ).all()
    )
    missing = [rid for rid in ids if rid not in known]
    if missing:
        raise InvalidRequest(
            [("resource_ids", f"resource_ids: {missing[0]} names no resource of this page")]
        )


async def subscribe(
    session: AsyncSession,
    *,
    page: StatusPage,
    sign_up: SignUp,
    box: SecretBox,
    now: datetime,
    max_subscribers: int,
) -> str | None:
    """Record the sign-up (call in a write transaction that locked the page); for a webhook,
    the signing secret it will be sent with once confirmed (shown to whoever signed up)."""
    await _check_resources(session, page, sign_up.resource_ids)
    key = tokens.address_key(sign_up.kind, sign_up.address)
    row = await session.scalar(
        select(StatusPageSubscriber).where(
            StatusPageSubscriber.status_page_id == page.id,
            StatusPageSubscriber.address_key == key,
        )
    )
    secret = signing.new_secret() if sign_up.kind == WEBHOOK else None
    if row is not None and now - row.requested_at < REQUEST_INTERVAL:
        # Asked a moment ago: the confirmation already sent stays the one that counts.
        return secret
    if row is None:
        # Sign-ups never confirmed in time give their place back.
        await session.execute(
            delete(StatusPageSubscriber)
            .where(
                StatusPageSubscriber.status_page_id == page.id,
                StatusPageSubscriber.confirmed_at.is_(None),
                StatusPageSubscriber.requested_at < now - CONFIRM_VALID_FOR,
            )
            .execution_options(synchronize_session=False)
        )
        await check_held(
            session,
            StatusPageSubscriber.status_page_id,
            page.id,
            limit=max_subscribers,
            full="this status page has as many subscribers as it may hold",
            status=409,
        )
        row = StatusPageSubscriber(
            team_id=page.team_id,
            status_page_id=page.id,
            kind=sign_up.kind,
            address=sign_up.address,
            address_key=key,
            resource_ids=[],
            unsubscribe_nonce=tokens.nonce(),
            created_at=now,
        )
        session.add(row)
    row.pending_resource_ids = sign_up.resource_ids
    row.pending_secret_encrypted = None if secret is None else box.encrypt(secret)
    row.confirm_nonce = tokens.nonce()
    row.requested_at = now
    row.updated_at = now
    await session.flush()
    await outbox.record(
        session,
        team_id=page.team_id,
        trigger_type="status_page_change",
        event=REQUESTED,
        data={"type": "status_page_subscriber", "id": str(row.id)},
        at=now,
        channels=[CHANNEL],
        extra={"status_page": {"id": str(page.id), "subdomain": page.subdomain}},
    )
    return secret


async def confirm(
    session: AsyncSession, *, box: SecretBox, token: str, now: datetime, lock: bool
) -> StatusPageSubscriber | None:
    """The subscriber a valid, unexpired confirm token names (confirmed when `lock`, in the
    caller's write transaction); None for anything else."""
    found = tokens.read(box, "confirm", token)
    if found is None:
        return None
    query = select(StatusPageSubscriber).where(StatusPageSubscriber.id == found[0])
    row = await session.scalar(query.with_for_update() if lock else query)
    if (
        row is None
        or row.confirm_nonce != found[1]
        or now - row.requested_at > CONFIRM_VALID_FOR
        or not await _subscribable(session, row.status_page_id)
    ):
        return None
    if lock:
        row.confirmed_at = row.confirmed_at or now
        row.resource_ids = list(row.pending_resource_ids)
        if row.pending_secret_encrypted is not None:
            row.signing_secret_encrypted = row.pending_secret_encrypted
            row.pending_secret_encrypted = None
        row.confirm_nonce = tokens.nonce()  # one use
        row.updated_at = now
        await session.flush()
    return row


async def _subscribable(session: AsyncSession, page_id: int) -> bool:
    return bool(
        await session.scalar(select(StatusPage.subscribable).where(StatusPage.id == page_id))
    )


async def by_unsubscribe_token(
    session: AsyncSession, *, box: SecretBox, token: str
) -> tuple[bool, StatusPageSubscriber | None]:
    """(whether the token is one of this instance's, the subscriber it names if it still
    exists)."""
    found = tokens.read(box, "unsubscribe", token)
    if found is None:
        return False, None
    row = await session.get(StatusPageSubscriber, found[0])
    if row is None or row.unsubscribe_nonce != found[1]:
        return True, None
    return True, row


async def note_attempt(
    session: AsyncSession, row: StatusPageSubscriber, *, ok: bool, now: datetime, limit: float
) -> bool:
    """A webhook subscriber's delivery attempt: a success ends its failing streak; a failure
    starts one, or removes the subscriber when every attempt has failed for `limit` seconds
    (True then)."""
    if ok:
        if row.failing_since is not None:
            await session.execute(
                update(StatusPageSubscriber)
                .where(StatusPageSubscriber.id == row.id)
                .values(failing_since=None)
                .execution_options(synchronize_session=False)
            )
        return False
    if row.failing_since is not None and now - row.failing_since >= timedelta(seconds=limit):
        await remove(session, row.id)
        return True
    await session.execute(
        update(StatusPageSubscriber)
        .where(StatusPageSubscriber.id == row.id, StatusPageSubscriber.failing_since.is_(None))
        .values(failing_since=now)
        .execution_options(synchronize_session=False)
    )
    return False


async def remove(session: AsyncSession, subscriber_id: int) -> None:
    """Delete a subscriber and what was still to be sent to it."""
    await session.execute(
        delete(Delivery)
        .where(Delivery.subscriber_id == subscriber_id)
        .execution_options(synchronize_session=False)
    )
    await session.execute(
        delete(StatusPageSubscriber)
        .where(StatusPageSubscriber.id == subscriber_id)
        .execution_options(synchronize_session=False)
    )


async def targets(
    session: AsyncSession, events: Sequence[Any], now: datetime
) -> dict[int, list[dict[str, Any]]]:
    """Event id → its subscriber targets: the subscriber a confirmation is for; the confirmed
    subscribers of a subscribable page for the rest (those of resources only when the
    report names one of theirs)."""
    found: dict[int, list[dict[str, Any]]] = {}
    notices = []
    for event in events:
        if event.event == REQUESTED:
            found[event.id] = [{"channel": CHANNEL, "subscriber_id": event.subject_id}]
        else:
            notices.append(event)
    page_ids = {int(event.payload["status_page"]["id"]) for event in notices}
    if not page_ids:
        return found
    rows = await session.execute(
        select(
            StatusPageSubscriber.id,
            StatusPageSubscriber.status_page_id,
            StatusPageSubscriber.resource_ids,
        )
        .join(StatusPage, StatusPage.id == StatusPageSubscriber.status_page_id)
        .where(
            StatusPageSubscriber.status_page_id.in_(page_ids),
            StatusPageSubscriber.confirmed_at.is_not(None),
            StatusPage.subscribable.is_(True),
        )
        .order_by(StatusPageSubscriber.id)
    )
    by_page: dict[int, list[tuple[int, list[int]]]] = defaultdict(list)
    for sid, page_id, resource_ids in rows:
        by_page[page_id].append((sid, list(resource_ids or [])))
    for event in notices:
        affected = payload_resources(event.payload)
        found[event.id] = [
            {"channel": CHANNEL, "subscriber_id": sid}
            for sid, resource_ids in by_page[int(event.payload["status_page"]["id"])]
            if not resource_ids or affected.intersection(resource_ids)
        ]
    return found
