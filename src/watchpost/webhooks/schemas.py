"""Request and response shapes of outgoing webhooks and their custom templates."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field

from watchpost.destinations import resend_problems
from watchpost.errors import Problem
from watchpost.problems import accepted, null_problems, team_name_problems, validated
from watchpost.validation import ClosedModel, DestinationUrl, Name, ShortText, check_header_value
from watchpost.webhooks import templates
from watchpost.webhooks.triggers import (
    DEFAULT_HTTP_METHOD,
    HTTP_METHODS,
    METHODS_WITHOUT_BODY,
    RESERVED_HEADERS,
    TRIGGER_FIELDS,
    TRIGGER_RULES,
    TRIGGER_TYPES,
    HttpMethod,
    TriggerType,
    trigger_problems,
)

# The Terraform provider sends "" for an unset password: empty means none.
OptionalSecret = Annotated[str, Field(max_length=1024)]

TEMPLATE_FIELD = "custom_webhook_template_attributes"
# A hosted-API attribute of incident_change webhooks (default true), kept apart from the
# on_incident_* flags (default false) that choose which events are sent.
INCIDENT_ONLY = "notify_alongside_primary_responder"
MAX_HEADERS = 50
MAX_BODY_TEMPLATE = 65_536

_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def check_header_name(value: str) -> str:
    text = value.strip()
    if not _TOKEN.match(text):
        raise ValueError("must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)")
    if text.lower() in RESERVED_HEADERS:
        raise ValueError("is set by Watchpost when the webhook is sent and cannot be templated")
    return text


def check_header_template(value: str) -> str:
    return check_template(check_header_value(value))


def check_template(value: str) -> str:
    problem = templates.check(value)
    if problem is not None:
        raise ValueError(problem)
    return value


HeaderName = Annotated[str, Field(max_length=255), AfterValidator(check_header_name)]
HeaderValue = Annotated[str, Field(max_length=8192), AfterValidator(check_header_template)]


class HeaderTemplate(ClosedModel):
    name: HeaderName
    value: HeaderValue


class WebhookTemplateInput(ClosedModel):
    """`custom_webhook_template_attributes`: only the sent fields change an existing template."""

    http_method: HttpMethod | None = Field(
        default=None, description=f"Default {DEFAULT_HTTP_METHOD}; never null."
    )
    auth_username: ShortText | None = Field(
        default=None, description="Empty or null: no basic auth."
    )
    auth_password: OptionalSecret | None = Field(
        default=None, description="Write-only; empty or null removes it."
    )
    headers_template: list[HeaderTemplate] | None = Field(default=None, max_length=MAX_HEADERS)
    body_template: Annotated[str, AfterValidator(check_template)] | None = Field(
        default=None,
        max_length=MAX_BODY_TEMPLATE,
        description="Not accepted with http_method get or head. A Jinja2 template "
        "(sandboxed), as are header values: `event`, `trigger_type`, `data` (the object as "
        "the API shows it), `payload` (the default body), `webhook_id`, `timestamp`; "
        "`{{ data | tojson }}` writes JSON. Without one, the body is the payload as JSON.",
    )


_FLAG_DOC = "incident_change webhooks only; default false."


class WebhookFields(ClosedModel):
    team_name: ShortText | None = Field(
        default=None, description="Optional; must name the API token's team."
    )
    on_incident_started: bool | None = Field(default=None, description=_FLAG_DOC)
    on_incident_acknowledged: bool | None = Field(default=None, description=_FLAG_DOC)
    on_incident_resolved: bool | None = Field(default=None, description=_FLAG_DOC)
    on_incident_reopened: bool | None = Field(default=None, description=_FLAG_DOC)
    on_incident_comment: bool | None = Field(default=None, description=_FLAG_DOC)
    notify_alongside_primary_responder: bool | None = Field(
        default=None,
        description="incident_change webhooks only; default true. Stored and returned; "
        "a webhook here is told of every incident event it subscribes to.",
    )
    custom_webhook_template_attributes: WebhookTemplateInput | None = Field(
        default=None, description="How the request is built; null removes the template (PATCH)."
    )


assert set(TRIGGER_FIELDS) <= set(WebhookFields.model_fields)


class WebhookCreate(WebhookFields):
    name: Name | None = Field(default=None, description="Default: the URL's host name.")
    url: DestinationUrl
    trigger_type: TriggerType


class WebhookUpdate(WebhookFields):
    name: Name | None = None
    url: DestinationUrl | None = None
    trigger_type: TriggerType | None = Field(default=None, description="Fixed after creation.")


# ------------------------------------------------------------------------------ responses


class WebhookAttributes(ClosedModel):
    name: str
    url: str
    trigger_type: TriggerType
    team_name: str
    on_incident_started: bool = Field(default=False, description=_FLAG_DOC)
    on_incident_acknowledged: bool = Field(default=False, description=_FLAG_DOC)
    on_incident_resolved: bool = Field(default=False, description=_FLAG_DOC)
    on_incident_reopened: bool = Field(default=False, description=_FLAG_DOC)
    on_incident_comment: bool = Field(default=False, description=_FLAG_DOC)
    notify_alongside_primary_responder: bool = Field(
        default=True, description="incident_change webhooks only."
    )
    custom_webhook_template_attributes: WebhookTemplateView | None = Field(
        default=None,
        description="The template as the hosted API's clients read it back (absent without "
        "one); auth_password is never shown.",
    )
    disabled_at: str | None = Field(
        default=None,
        description="Read-only, only on a disabled webhook: when deliveries stopped (410 "
        "Gone, or failing for too long). Any update enables it again.",
    )
    disabled_reason: str | None = Field(
        default=None, description="Read-only, only on a disabled webhook: why."
    )
    signing_secret: str | None = Field(
        default=None,
        description="The `whsec_…` key that signs requests (Standard Webhooks). Only in the "
        "responses of create and rotate-secret.",
    )


class WebhookTemplateAttributes(ClosedModel):
    """A template as responses show it: auth_password is never shown."""

    http_method: HttpMethod
    auth_username: str | None
    headers_template: list[HeaderTemplate]
    body_template: str | None


class WebhookTemplateView(WebhookTemplateAttributes):
    id: str


class WebhookTemplateReference(BaseModel):
    id: str
    type: Literal["custom_webhook_template"]


class WebhookTemplateRelationship(BaseModel):
    data: WebhookTemplateReference | None


class WebhookRelationships(BaseModel):
    custom_webhook_template: WebhookTemplateRelationship


class WebhookResource(BaseModel):
    id: str
    type: Literal["outgoing_webhook"]
    attributes: WebhookAttributes
    relationships: WebhookRelationships


class WebhookTemplateResource(BaseModel):
    id: str
    type: Literal["custom_webhook_template"]
    attributes: WebhookTemplateAttributes


WebhookAttributes.model_rebuild()

# Optional on PATCH, but never null (a 422 names them; the flags also on other triggers,
# which refuse them whatever their value).
WEBHOOK_NOT_NULL = ("name", "url", "trigger_type", *TRIGGER_FIELDS, INCIDENT_ONLY)

# -------------------------------------------------------------------------------- parsing


def _given(data: dict[str, Any]) -> set[str]:
    """Fields sent with a value: null counts as not sent (as for collector targets)."""
    return {name for name, value in data.items() if value is not None}


def _template_problems(raw: Any, current: dict[str, Any] | None) -> list[tuple[str | None, str]]:
    """Rules on the template as it will be: http_method never null, no body on get/head."""
    if not isinstance(raw, dict):
        return []
    problems: list[tuple[str | None, str]] = []
    if "http_method" in raw and raw["http_method"] is None:
        allowed = ", ".join(HTTP_METHODS)
        problems.append(
            (TEMPLATE_FIELD, f"{TEMPLATE_FIELD}.http_method must be one of {allowed}, not null")
        )
    base = current or {"http_method": DEFAULT_HTTP_METHOD, "body_template": None}
    method = raw.get("http_method") or base["http_method"]
    body = raw["body_template"] if "body_template" in raw else base["body_template"]
    if (
        isinstance(method, str)
        and method in METHODS_WITHOUT_BODY
        and isinstance(body, str)
        and body
    ):
        problems.append(
            (
                TEMPLATE_FIELD,
                f"{TEMPLATE_FIELD}.body_template cannot be used with http_method {method} "
                "(it sends no body)",
            )
        )
    return problems


def _incident_only_problems(trigger_type: str, data: dict[str, Any]) -> list[Problem]:
    if trigger_type == "incident_change" or data.get(INCIDENT_ONLY) is None:
        return []
    return [(INCIDENT_ONLY, f"{INCIDENT_ONLY} applies to incident_change webhooks only")]


def parse_webhook_create(data: dict[str, Any], *, team_name: str) -> WebhookCreate:
    """Validate a create request: types, formats, the trigger table; all reported at once."""
    parsed, problems = validated(WebhookCreate, data)
    trigger_type = data.get("trigger_type")
    if isinstance(trigger_type, str) and trigger_type in TRIGGER_RULES:
        problems += trigger_problems(trigger_type, _given(data))
        problems += _incident_only_problems(trigger_type, data)
    problems += team_name_problems(data.get("team_name"), team_name)
    problems += _template_problems(data.get(TEMPLATE_FIELD), None)
    return accepted(parsed, problems)


def _resend_problems(
    parsed: WebhookUpdate, url: str, template: dict[str, Any] | None
) -> list[tuple[str | None, str]]:
    """The stored auth_password goes only to the url it was set for (destinations.py)."""
    secret = f"{TEMPLATE_FIELD}.auth_password"
    stored = [secret] if template is not None and template.get("auth_password") else []
    fields = parsed.custom_webhook_template_attributes
    resent = TEMPLATE_FIELD in parsed.model_fields_set and (
        fields is None or "auth_password" in fields.model_fields_set
    )
    return resend_problems(
        "outgoing_webhook",
        current={"url": url},
        changes={"url": parsed.url} if "url" in parsed.model_fields_set else {},
        stored=stored,
        resent=[secret] if resent else [],
    )


def parse_webhook_update(
    data: dict[str, Any],
    *,
    trigger_type: str,
    url: str,
    template: dict[str, Any] | None,
    team_name: str,
) -> WebhookUpdate:
    """Validate a PATCH against the webhook as it is: trigger_type fixed, table applied.

    template: the current template's values (auth_password only says whether it is set).
    """
    parsed, problems = validated(WebhookUpdate, data)
    sent = data.get("trigger_type")
    if "trigger_type" in data and sent is None:
        problems.append(("trigger_type", "trigger_type must not be null"))
    elif sent in TRIGGER_TYPES and sent != trigger_type:
        problems.append(
            ("trigger_type", f"trigger_type cannot be changed (this webhook is {trigger_type})")
        )
    problems += null_problems(
        data, ("name", "url", *TRIGGER_RULES[trigger_type].accepted, INCIDENT_ONLY)
    )
    problems += trigger_problems(trigger_type, _given(data))
    problems += _incident_only_problems(trigger_type, data)
    problems += team_name_problems(data.get("team_name"), team_name)
    problems += _template_problems(data.get(TEMPLATE_FIELD), template)
    if parsed is not None:
        problems += _resend_problems(parsed, url, template)
    return accepted(parsed, problems)
