"""What outgoing webhooks and their templates do: create, read, change, delete. No HTTP here."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, Final
from urllib.parse import urlsplit

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.crypto import SecretBox
from watchpost.db.deletions import delete_named
from watchpost.db.queries import team_object
from watchpost.listing import Page, PageRequest, paginate
from watchpost.webhooks.models import CustomWebhookTemplate, OutgoingWebhook
from watchpost.webhooks.schemas import (
    INCIDENT_ONLY,
    TEMPLATE_FIELD,
    WebhookCreate,
    WebhookTemplateInput,
    WebhookUpdate,
    parse_webhook_create,
    parse_webhook_update,
)
from watchpost.webhooks.triggers import DEFAULT_HTTP_METHOD, TRIGGER_FIELDS, TRIGGER_RULES
from watchpost.writing import Writing

WEBHOOK = "outgoing_webhook"
TEMPLATE = "custom_webhook_template"


# ------------------------------------------------------------------------------ responses


def webhook_attributes(webhook: OutgoingWebhook, team_name: str) -> dict[str, Any]:
    """The spec's four attributes, plus the trigger-dependent ones its trigger_type accepts,
    and why deliveries stopped when they did."""
    attributes: dict[str, Any] = {
        "name": webhook.name,
        "url": webhook.url,
        "trigger_type": webhook.trigger_type,
        "team_name": team_name,
    }
    for name in TRIGGER_RULES[webhook.trigger_type].accepted:
        attributes[name] = getattr(webhook, name)
    if webhook.trigger_type == "incident_change":
        attributes[INCIDENT_ONLY] = webhook.notify_alongside_primary_responder
    template = webhook.custom_webhook_template
    if template is not None:  # where the hosted API's clients read it; absent without one
        attributes[TEMPLATE_FIELD] = {"id": str(template.id), **template_attributes(template)}
    if webhook.disabled_at is not None:  # the spec's shape otherwise
        attributes["disabled_at"] = isoformat_ms(webhook.disabled_at)
        attributes["disabled_reason"] = webhook.disabled_reason
    return attributes


def webhook_relationships(webhook: OutgoingWebhook) -> dict[str, Any]:
    template = webhook.custom_webhook_template
    reference = None if template is None else {"id": str(template.id), "type": TEMPLATE}
    return {"custom_webhook_template": {"data": reference}}


def template_attributes(template: CustomWebhookTemplate) -> dict[str, Any]:
    return {
        "http_method": template.http_method,
        "auth_username": template.auth_username,
        "headers_template": [
            {"name": header["name"], "value": header["value"]}
            for header in template.headers_template or []
        ],
        "body_template": template.body_template,
    }


def templates_of(webhooks: Iterable[OutgoingWebhook]) -> list[CustomWebhookTemplate]:
    return [
        webhook.custom_webhook_template
        for webhook in webhooks
        if webhook.custom_webhook_template is not None
    ]


# ------------------------------------------------------------------------------ templates


def template_values(webhook: OutgoingWebhook) -> dict[str, Any] | None:
    """What the PATCH rules need to know of the current template (auth_password: whether set)."""
    template = webhook.custom_webhook_template
    if template is None:
        return None
    return {
        "http_method": template.http_method,
        "body_template": template.body_template,
        "auth_password": "set" if template.auth_password_encrypted is not None else None,
    }


def _apply_template(
    template: CustomWebhookTemplate, data: WebhookTemplateInput, box: SecretBox, now: datetime
) -> None:
    for name in data.model_fields_set:
        value = getattr(data, name)
        if name == "auth_password":  # "" (the Terraform provider's unset) is no password
            template.auth_password_encrypted = box.encrypt(value) if value else None
        elif name in ("auth_username", "body_template"):  # "" is none, as for the password
            setattr(template, name, value or None)
        elif name == "headers_template":
            template.headers_template = [header.model_dump() for header in value or []]
        elif name == "http_method":
            template.http_method = value or DEFAULT_HTTP_METHOD
        else:
            setattr(template, name, value)
    template.updated_at = now


def _new_template(team_id: int, now: datetime) -> CustomWebhookTemplate:
    return CustomWebhookTemplate(
        team_id=team_id,
        http_method=DEFAULT_HTTP_METHOD,
        headers_template=[],
        created_at=now,
        updated_at=now,
    )


# ------------------------------------------------------------------------------- webhooks


def _default_name(url: str) -> str:
    return urlsplit(url).hostname or url


async def create_webhook(
    session: AsyncSession,
    *,
    team_id: int,
    data: WebhookCreate,
    box: SecretBox,
    now: datetime,
    signing_secret: str,
) -> OutgoingWebhook:
    """A new webhook signing with `signing_secret`; flags its trigger_type does not accept
    stay false."""
    webhook = OutgoingWebhook(
        team_id=team_id,
        signing_secret_encrypted=box.encrypt(signing_secret),
        name=data.name if data.name is not None else _default_name(data.url),
        url=data.url,
        trigger_type=data.trigger_type,
        created_at=now,
        updated_at=now,
        **{name: bool(getattr(data, name)) for name in TRIGGER_FIELDS},
        notify_alongside_primary_responder=data.notify_alongside_primary_responder is not False,
    )
    if data.custom_webhook_template_attributes is not None:
        template = _new_template(team_id, now)
        _apply_template(template, data.custom_webhook_template_attributes, box, now)
        webhook.custom_webhook_template = template
    session.add(webhook)
    await session.flush()
    return webhook


async def create_from_body(
    write: Writing, body: dict[str, Any], *, signing_secret: str
) -> OutgoingWebhook:
    """A webhook from a request body, every rule checked (an InvalidRequest naming every
    problem): the one path the API and the console both create webhooks by."""
    data = parse_webhook_create(body, team_name=write.team_name)
    return await create_webhook(
        write.session,
        team_id=write.team_id,
        data=data,
        box=write.box,
        now=write.now,
        signing_secret=signing_secret,
    )


def webhooks_of(team_id: int) -> Select[tuple[OutgoingWebhook]]:
    return select(OutgoingWebhook).where(OutgoingWebhook.team_id == team_id)


async def list_webhooks(
    session: AsyncSession, *, team_id: int, paging: PageRequest
) -> Page[OutgoingWebhook]:
    return await paginate(session, webhooks_of(team_id), paging, order_by=OutgoingWebhook.id)


async def get_webhook(session: AsyncSession, *, team_id: int, webhook_id: int) -> OutgoingWebhook:
    return await team_object(
        session, OutgoingWebhook, WEBHOOK, team_id=team_id, object_id=webhook_id
    )


async def update_webhook(
    session: AsyncSession,
    *,
    webhook: OutgoingWebhook,
    data: WebhookUpdate,
    sent: set[str],
    box: SecretBox,
    now: datetime,
) -> OutgoingWebhook:
    """Apply a validated PATCH; a null template removes it, an object creates or changes it.
    A disabled webhook is enabled again: an update is how its owner says it is fixed."""
    for name in ("name", "url", *TRIGGER_RULES[webhook.trigger_type].accepted, INCIDENT_ONLY):
        if name in sent:
            setattr(webhook, name, getattr(data, name))
    if TEMPLATE_FIELD in sent:
        fields = data.custom_webhook_template_attributes
        if fields is None:
            webhook.custom_webhook_template = None  # the orphan row is deleted
        else:
            template = webhook.custom_webhook_template
            if template is None:
                template = _new_template(webhook.team_id, now)
                webhook.custom_webhook_template = template
            _apply_template(template, fields, box, now)
    webhook.disabled_at = webhook.disabled_reason = webhook.failing_since = None
    webhook.updated_at = now
    await session.flush()
    return webhook


async def update_from_body(
    write: Writing, webhook: OutgoingWebhook, body: dict[str, Any]
) -> OutgoingWebhook:
    """A PATCH body checked against the webhook as it is, then applied (API and console);
    an InvalidRequest leaves the webhook unchanged."""
    data = parse_webhook_update(
        body,
        trigger_type=webhook.trigger_type,
        url=webhook.url,
        template=template_values(webhook),
        team_name=write.team_name,
    )
    sent = set(data.model_fields_set)
    return await update_webhook(
        write.session, webhook=webhook, data=data, sent=sent, box=write.box, now=write.now
    )


ROTATION_OVERLAP: Final = timedelta(hours=24)
"""How long the previous key still signs after a rotation."""


async def rotate_secret(
    session: AsyncSession,
    *,
    webhook: OutgoingWebhook,
    box: SecretBox,
    now: datetime,
    signing_secret: str,
) -> OutgoingWebhook:
    """Sign with `signing_secret` from now on, and with the current key too for 24 hours."""
    webhook.previous_secret_encrypted = webhook.signing_secret_encrypted
    webhook.previous_secret_expires_at = (
        now + ROTATION_OVERLAP if webhook.signing_secret_encrypted is not None else None
    )
    webhook.signing_secret_encrypted = box.encrypt(signing_secret)
    webhook.updated_at = now
    await session.flush()
    return webhook


async def delete_webhook(session: AsyncSession, *, webhook: OutgoingWebhook) -> None:
    """Delete the webhook, by cascade its template, and the status page resources showing it
    (WebhookIntegration)."""
    await delete_named(session, webhook, item_type="WebhookIntegration")
