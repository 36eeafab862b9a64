"""The outgoing webhook form: its fields (read from the webhooks domain's request models
and trigger table), the posted form as the API's JSON body, and the domain's problems put
beside the fields they name.

The events a webhook fires on are the trigger table's flags (webhooks/triggers.py): each is a
labelled checkbox with a line saying when it fires. The API's default for every flag is
false; a new incident_change webhook's form pre-checks started, acknowledged and resolved
(docs/api.md, "Outgoing webhooks in the console").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from watchpost.console.forms import FORM_ERROR, Field, Raw, body_of, field_of, initial, posted
from watchpost.errors import Problem
from watchpost.webhooks.models import OutgoingWebhook
from watchpost.webhooks.schemas import TEMPLATE_FIELD, WebhookCreate, WebhookTemplateInput
from watchpost.webhooks.triggers import (
    DEFAULT_HTTP_METHOD,
    HTTP_METHODS,
    INCIDENT_FLAGS,
    TRIGGER_RULES,
    TRIGGER_TYPES,
)

TRIGGER_WORDS: Final[dict[str, str]] = {
    "incident_change": "Incident changes",
    "monitor_change": "Monitor changes",
    "on_call_change": "On-call changes",
}
assert set(TRIGGER_WORDS) == set(TRIGGER_TYPES)
DEFAULT_TRIGGER: Final = "incident_change"

FLAG_WORDS: Final[dict[str, tuple[str, str]]] = {
    "on_incident_started": (
        "Incident started",
        "When an incident starts: a monitor or heartbeat goes down, or someone reports one.",
    ),
    "on_incident_acknowledged": (
        "Incident acknowledged",
        "When someone acknowledges an incident (they are on it).",
    ),
    "on_incident_resolved": (
        "Incident resolved",
        "When an incident is resolved, by a person or because the check recovered.",
    ),
    "on_incident_reopened": (
        "Incident reopened",
        "When a resolved incident is opened again.",
    ),
    "on_incident_comment": (
        "Comment added",
        "When someone comments on an incident.",
    ),
}
assert set(FLAG_WORDS) == set(INCIDENT_FLAGS)
DEFAULT_FLAGS: Final = ("on_incident_started", "on_incident_acknowledged", "on_incident_resolved")
"""Pre-checked on a new incident_change webhook's form (the API's default is none)."""

TEMPLATE_NAMES: Final = (
    "http_method",
    "auth_username",
    "auth_password",
    "headers_template",
    "body_template",
)


def flag_fields(trigger_type: str) -> list[Field]:
    return [
        Field(name=name, label=FLAG_WORDS[name][0], input="checkbox", hint=FLAG_WORDS[name][1])
        for name in TRIGGER_RULES[trigger_type].accepted
    ]


def main_fields() -> list[Field]:
    return [
        field_of(WebhookCreate, "name", label="Name", hint="Default: the URL's host name."),
        field_of(
            WebhookCreate,
            "url",
            label="URL",
            required=True,
            hint="Where Watchpost sends its requests: an absolute http:// or https:// URL.",
        ),
    ]


def template_fields() -> list[Field]:
    model = WebhookTemplateInput
    return [
        field_of(
            model,
            "http_method",
            label="HTTP method",
            hint="POST unless you choose another.",
            choices=[(method, method.upper()) for method in HTTP_METHODS],
        ),
        field_of(
            model,
            "auth_username",
            label="Username (HTTP basic auth)",
            hint="Empty: no basic auth.",
        ),
        field_of(model, "auth_password", label="Password (HTTP basic auth)", secret=True, hint=""),
        field_of(
            model,
            "headers_template",
            label="Extra headers",
            hint='One per line, "Name: value". Values may use the template variables.',
        ),
        field_of(
            model,
            "body_template",
            label="Body template",
            hint="Empty: the event as JSON. A Jinja2 template: event, trigger_type, data, "
            "payload, webhook_id, timestamp; {{ data | tojson }} writes JSON.",
        ),
    ]


def all_fields(trigger_type: str) -> list[Field]:
    return [*main_fields(), *flag_fields(trigger_type), *template_fields()]


def new_values(trigger_type: str) -> dict[str, Raw]:
    values = initial(all_fields(trigger_type), {"http_method": DEFAULT_HTTP_METHOD})
    for name in DEFAULT_FLAGS:
        if name in values:
            values[name] = True
    return values


def current_values(webhook: OutgoingWebhook) -> dict[str, Raw]:
    shown: dict[str, Any] = {"name": webhook.name, "url": webhook.url}
    for name in TRIGGER_RULES[webhook.trigger_type].accepted:
        shown[name] = getattr(webhook, name)
    template = webhook.custom_webhook_template
    shown["http_method"] = DEFAULT_HTTP_METHOD
    if template is not None:
        shown.update(
            http_method=template.http_method,
            auth_username=template.auth_username,
            headers_template=template.headers_template or [],
            body_template=template.body_template,
        )
    return initial(all_fields(webhook.trigger_type), shown)


def read(trigger_type: str, form: Any) -> dict[str, Raw]:
    return posted(all_fields(trigger_type), form)


def _template_is_default(raw: Mapping[str, Raw]) -> bool:
    return (
        str(raw.get("http_method") or DEFAULT_HTTP_METHOD) == DEFAULT_HTTP_METHOD
        and not str(raw.get("auth_username", "")).strip()
        and not str(raw.get("auth_password", ""))
        and not str(raw.get("headers_template", "")).strip()
        and not str(raw.get("body_template", "")).strip()
    )


def create_body(trigger_type: str, raw: Mapping[str, Raw]) -> dict[str, Any]:
    """The API's create body: a template only when the request is not the default one."""
    body: dict[str, Any] = {"trigger_type": trigger_type}
    body.update(body_of([*main_fields(), *flag_fields(trigger_type)], raw, creating=True))
    if not _template_is_default(raw):
        body[TEMPLATE_FIELD] = body_of(template_fields(), raw, creating=True)
    return body


def update_body(webhook: OutgoingWebhook, raw: Mapping[str, Raw]) -> dict[str, Any]:
    """The API's PATCH body. The template: every shown field sent (the password only when
    typed or removed); a template back to the default request, without a stored password,
    is removed; none stays none while the fields are left at the default."""
    body = body_of([*main_fields(), *flag_fields(webhook.trigger_type)], raw, creating=False)
    template = webhook.custom_webhook_template
    stored_password = template is not None and template.auth_password_encrypted is not None
    cleared = bool(raw.get("auth_password__clear"))
    if _template_is_default(raw) and (not stored_password or cleared):
        if template is not None:
            body[TEMPLATE_FIELD] = None
        return body
    current = {"headers_template": template.headers_template if template else []}
    fields = body_of(template_fields(), raw, creating=False, current=current)
    fields["http_method"] = fields.get("http_method") or DEFAULT_HTTP_METHOD
    fields["headers_template"] = fields.get("headers_template") or []
    body[TEMPLATE_FIELD] = fields
    return body


def form_problems(problems: list[Problem], shown: set[str]) -> dict[str, str]:
    """The domain's problems beside the form's fields: a template problem beside the
    template field its path names (its message without the API's wrapper name)."""
    errors: dict[str, str] = {}
    prefix = TEMPLATE_FIELD + "."
    for name, message in problems:
        key = name if name in shown else FORM_ERROR
        if name == TEMPLATE_FIELD:
            text = message.removeprefix(prefix)
            first = text.split(".", 1)[0].split(" ", 1)[0]
            key = first if first in TEMPLATE_NAMES else "http_method"
            message = text
        errors[key] = f"{errors[key]} {message}" if key in errors else message
    return errors
