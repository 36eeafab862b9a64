"""/webhooks: the team's outgoing webhooks in the console. A paged list; a webhook's page
with its settings, the events it fires on and its delivery log (paged, newest first; each
delivery unfolds to its attempts, read for the whole page in one statement); create,
edit, delete (confirmed); Rotate secret (confirmed; the new key shown once); Send test (a real
attempt through the delivery machinery, its outcome shown); Retry of a delivery (made due
now, sent by the delivery worker).

Every change goes through the domain functions the API calls (webhooks/service.py,
delivery/service.py) with an audit entry in the same transaction. Reading needs Action.READ
(any member); create, edit, delete and rotating the secret need Action.EDIT; Send test and
Retry need Action.OPERATE (a responder's: they send what the webhook already says, change
nothing of its settings). Another team's webhook or delivery is a 404.
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console import webhooks_forms as forms
from watchpost.console.account import audit
from watchpost.console.auth import Viewer, posted_writing, read_db
from watchpost.console.forms import Raw
from watchpost.console.query_numbers import number
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page, render
from watchpost.delivery import attempt_log
from watchpost.delivery import service as deliveries
from watchpost.delivery.models import Delivery, DeliveryAttempt, DeliveryEvent
from watchpost.errors import InvalidRequest, NotFound
from watchpost.http.deps import request_sessions
from watchpost.listing import PageRequest
from watchpost.people.roles import Action
from watchpost.validation import object_id
from watchpost.webhooks import service, signing
from watchpost.webhooks.models import OutgoingWebhook
from watchpost.webhooks.triggers import TRIGGER_RULES, TRIGGER_TYPES

router = console_router()

SECTION: Final = "webhooks"
PAGE_SIZE: Final = 25
LOG_PAGE_SIZE: Final = 20
EXCERPT_SHOWN: Final = 300
"""Characters of a response excerpt the log shows (the API keeps the first KB)."""
NOTICES: Final = {
    "retried": "Queued again: the delivery worker sends it within seconds. Reload to see it.",
    "saved": "Saved.",
}
STATE_WORDS: Final = {
    "pending": "Pending",
    "succeeded": "Delivered",
    "failed": "Failed",
    "cancelled": "Cancelled",
}
STATE_CLASSES: Final = {
    "pending": "pending",
    "succeeded": "up",
    "failed": "down",
    "cancelled": "paused",
}


def paging(request: Request, size: int, name: str = "page") -> PageRequest:
    others = tuple((k, v) for k, v in request.query_params.multi_items() if k == "tab")
    return PageRequest(
        page=number(request.query_params.get(name)),
        per_page=size,
        base_url=request.url.path,
        other_params=others,
    )


def _trigger(value: object, fallback: str = forms.DEFAULT_TRIGGER) -> str:
    return value if isinstance(value, str) and value in TRIGGER_TYPES else fallback


def events_of(webhook: OutgoingWebhook) -> list[str]:
    """The words of the events the webhook fires on."""
    accepted = TRIGGER_RULES[webhook.trigger_type].accepted
    if not accepted:
        return [TRIGGER_RULES[webhook.trigger_type].fires_when.capitalize()]
    return [forms.FLAG_WORDS[name][0] for name in accepted if getattr(webhook, name)]


async def _find(db: AsyncSession, who: Viewer, webhook_id: str) -> OutgoingWebhook:
    return await service.get_webhook(
        db, team_id=who.team_id, webhook_id=object_id(webhook_id, service.WEBHOOK)
    )


async def _audit(
    request: Request, who: Viewer, db: AsyncSession, action: str, webhook: OutgoingWebhook
) -> None:
    await audit(db, request, who, action, None, (service.WEBHOOK, webhook.id, webhook.name))


# ------------------------------------------------------------------------------- list


@router.get("/webhooks")
async def list_page(request: Request, who: Signed) -> Response:
    db = await read_db(request, who, Action.READ)
    wanted = paging(request, PAGE_SIZE)
    page = await service.list_webhooks(db, team_id=who.team_id, paging=wanted)
    return render(
        request,
        "webhooks.html",
        viewer=who,
        section=SECTION,
        rows=[(webhook, events_of(webhook)) for webhook in page.data],
        links=page.links,
        page_number=wanted.page,
        trigger_words=forms.TRIGGER_WORDS,
    )


# ------------------------------------------------------------------------------- form


def _form(
    request: Request,
    who: Viewer,
    *,
    trigger_type: str,
    values: dict[str, Raw],
    webhook: OutgoingWebhook | None = None,
    errors: dict[str, str] | None = None,
) -> Response:
    template = webhook.custom_webhook_template if webhook is not None else None
    return form_page(
        request,
        "webhook_form.html",
        who,
        errors=errors,
        section=SECTION,
        webhook=webhook,
        trigger_type=trigger_type,
        trigger_words=forms.TRIGGER_WORDS,
        fires_when=TRIGGER_RULES[trigger_type].fires_when,
        main=forms.main_fields(),
        flags=forms.flag_fields(trigger_type),
        request_fields=forms.template_fields(),
        values=values,
        secrets={
            "auth_password": template is not None and template.auth_password_encrypted is not None
        },
    )


@router.get("/webhooks/new")
async def new_form(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    trigger_type = _trigger(request.query_params.get("trigger_type"))
    return _form(request, who, trigger_type=trigger_type, values=forms.new_values(trigger_type))


@router.post("/webhooks/new")
async def create(request: Request, who: Signed) -> Response:
    form, write = await posted_writing(request, who, Action.EDIT)
    sent = str(form.get("trigger_type", ""))
    trigger_type = _trigger(sent)
    raw = forms.read(trigger_type, form)
    body = forms.create_body(trigger_type, raw)
    body["trigger_type"] = sent
    secret = signing.new_secret()
    db = write.session
    try:
        async with db.begin():
            webhook = await service.create_from_body(write, body, signing_secret=secret)
            await _audit(request, who, db, "outgoing_webhook.created", webhook)
    except InvalidRequest as exc:
        shown = {f.name for f in forms.all_fields(trigger_type)} | {"trigger_type"}
        errors = forms.form_problems(exc.problems, shown)
        return _form(request, who, trigger_type=trigger_type, values=raw, errors=errors)
    async with db.begin():
        return await _webhook_page(
            request, who, db, webhook_id=webhook.id, secret=secret, fresh="created"
        )


@router.get("/webhooks/{webhook_id}/edit")
async def edit_form(request: Request, who: Signed, webhook_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    webhook = await _find(db, who, webhook_id)
    return _form(
        request,
        who,
        trigger_type=webhook.trigger_type,
        values=forms.current_values(webhook),
        webhook=webhook,
    )


@router.post("/webhooks/{webhook_id}/edit")
async def update(request: Request, who: Signed, webhook_id: str) -> Response:
    form, write = await posted_writing(request, who, Action.EDIT)
    db = write.session
    async with db.begin():
        webhook = await _find(db, who, webhook_id)
        raw = forms.read(webhook.trigger_type, form)
        body = forms.update_body(webhook, raw)
        try:
            await service.update_from_body(write, webhook, body)
        except InvalidRequest as exc:  # the webhook is unchanged
            shown = {f.name for f in forms.all_fields(webhook.trigger_type)}
            errors = forms.form_problems(exc.problems, shown)
            return _form(
                request,
                who,
                trigger_type=webhook.trigger_type,
                values=raw,
                webhook=webhook,
                errors=errors,
            )
        await _audit(request, who, db, "outgoing_webhook.updated", webhook)
        found = webhook.id
    return RedirectResponse(f"/webhooks/{found}?done=saved", status_code=303)


# ------------------------------------------------------------------------- one webhook


def _excerpt(text: str | None) -> str | None:
    if text is None:
        return None
    return text if len(text) <= EXCERPT_SHOWN else text[:EXCERPT_SHOWN] + "…"


def attempt_view(attempt: DeliveryAttempt) -> dict[str, Any]:
    """What the log shows of one attempt of a delivery."""
    code = attempt.status_code
    return {
        "number": attempt.number,
        "at": attempt.attempted_at,
        "ok": code is not None and 200 <= code < 300,
        "status_code": code,
        "error": attempt.error,
        "duration_ms": attempt.duration_ms,
        "excerpt": _excerpt(attempt.response_excerpt),
        "next_at": attempt.next_attempt_at,
    }


def delivery_view(delivery: Delivery, event: DeliveryEvent) -> dict[str, Any]:
    """What the log shows of a delivery (its last attempt's outcome)."""
    failed_last = delivery.attempts > 0 and (
        delivery.status_code is None or not 200 <= delivery.status_code < 300
    )
    return {
        "id": delivery.id,
        "event": f"{event.trigger_type.replace('_', ' ')}: {event.event}",
        "subject": f"{event.subject_type} {event.subject_id}" if event.subject_id else "test",
        "test": event.subject_id == 0,
        "state": "Retrying"
        if delivery.state == "pending" and failed_last
        else STATE_WORDS.get(delivery.state, delivery.state),
        "state_class": STATE_CLASSES.get(delivery.state, "pending"),
        "attempts": delivery.attempts,
        "at": delivery.last_attempt_at,
        "created_at": delivery.created_at,
        "status_code": delivery.status_code,
        "error": delivery.error,
        "duration_ms": delivery.duration_ms,
        "excerpt": _excerpt(delivery.response_excerpt),
        "next_at": delivery.next_attempt_at if delivery.state == "pending" else None,
        "retryable": delivery.state in ("failed", "cancelled")
        or (delivery.state == "pending" and failed_last),
    }


async def _webhook_page(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    *,
    webhook_id: int,
    secret: str | None = None,
    fresh: str | None = None,
) -> Response:
    webhook = await service.get_webhook(db, team_id=who.team_id, webhook_id=webhook_id)
    wanted = paging(request, LOG_PAGE_SIZE) if fresh is None else paging_first()
    page = await deliveries.list_deliveries(db, webhook=webhook, paging=wanted)
    logged = await attempt_log.attempts_of(db, [delivery.id for delivery, _ in page.data])
    tested = None
    tested_id = request.query_params.get("tested", "")
    if fresh is None and tested_id.isascii() and tested_id.isdigit() and len(tested_id) < 19:
        try:
            tested = delivery_view(
                *await deliveries.get_delivery(db, webhook=webhook, delivery_id=int(tested_id))
            )
        except NotFound:  # a stale id, or another webhook's: no result shown
            tested = None
    notice = NOTICES.get(request.query_params.get("done", "")) if fresh is None else None
    extra: dict[str, Any] = {"notice": notice} if notice else {}
    return render(
        request,
        "webhook.html",
        viewer=who,
        section=SECTION,
        webhook=webhook,
        events=events_of(webhook),
        flags=[
            (forms.FLAG_WORDS[name][0], getattr(webhook, name))
            for name in TRIGGER_RULES[webhook.trigger_type].accepted
        ],
        fires_when=TRIGGER_RULES[webhook.trigger_type].fires_when,
        trigger_words=forms.TRIGGER_WORDS,
        custom=webhook.custom_webhook_template,
        log=[
            {
                **delivery_view(delivery, event),
                "tries": [attempt_view(attempt) for attempt in logged[delivery.id]],
            }
            for delivery, event in page.data
        ],
        links=page.links,
        page_number=wanted.page,
        tested=tested,
        secret=secret,
        fresh=fresh,
        **extra,
    )


def paging_first() -> PageRequest:
    return PageRequest(page=1, per_page=LOG_PAGE_SIZE, base_url="", other_params=())


@router.get("/webhooks/{webhook_id}")
async def webhook_page(request: Request, who: Signed, webhook_id: str) -> Response:
    who.require(Action.READ)
    found = object_id(webhook_id, service.WEBHOOK)
    db = await request_sessions(request).read()
    return await _webhook_page(request, who, db, webhook_id=found)
