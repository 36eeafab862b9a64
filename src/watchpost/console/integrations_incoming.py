"""/integrations/incoming: the team's incoming webhooks in the console (listed with the
PagerDuty integrations on /integrations, console/integrations.py): each one's page with its
receiving URL and a curl example, create and edit forms (rules and extracted fields as the
API's JSON) and a confirmed delete, through incoming/service.py with an audit entry."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final

import orjson
from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.auth import Viewer, checked_form, viewer
from watchpost.console.errors import ConsoleRoute
from watchpost.console.form_kit import FormPage, choices, save, show
from watchpost.console.forms import (
    Field,
    Raw,
    body_of,
    field_of,
    initial,
    posted,
)
from watchpost.console.integrations import (
    INCOMING,
    NOTICES,
    SECTION,
    _caller,
    _delete,
)
from watchpost.console.web import render
from watchpost.errors import InvalidRequest, Problem
from watchpost.http.deps import request_sessions
from watchpost.incoming import schemas as incoming_schemas
from watchpost.incoming import service as incoming
from watchpost.incoming.endpoints import public_base
from watchpost.incoming.models import IncomingWebhook
from watchpost.incoming.receive_endpoints import METHODS as RECEIVE_METHODS
from watchpost.people.roles import Action
from watchpost.policies.models import Policy
from watchpost.problems import accepted, checked
from watchpost.validation import object_id

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
Signed = Annotated[Viewer, Depends(viewer)]


# ------------------------------------------------------------------ incoming webhooks

_IN = incoming_schemas.WebhookCreate
RULE_WORDS: Final = {
    "started": "start an incident",
    "acknowledged": "acknowledge it",
    "resolved": "resolve it",
}
RULE_TYPE_CHOICES: Final = (
    ("unused", "Unused"),
    ("all", "All rules must hold"),
    ("any", "Any rule may hold"),
)
JSON_LISTS: Final = (*incoming_schemas.RULE_LISTS, *incoming_schemas.FIELD_LISTS)
JSON_FIELDS: Final = (*JSON_LISTS, *incoming_schemas.SINGLE_FIELDS)
RULE_EXAMPLE: Final = (
    'JSON, a list of rules, e.g. [{"rule_target": "json", "target_field": "status", '
    '"match_type": "equals", "content": "firing"}]. Targets: body, json, header, '
    "query_string, xml; matches: contains, equals, matches_regex and their _not."
)
FIELD_EXAMPLE: Final = (
    'JSON, e.g. {"field_target": "json", "target_field": "alert.title", '
    '"match_type": "match_everything"}.'
)
LIST_EXAMPLE: Final = "JSON, a list of fields like the ones above, each with a name."
INCOMING_LABELS: Final = {
    "name": "Name",
    "paused": "Paused (requests are ignored)",
    "recovery_period": "Recovery period (seconds)",
    "call": "Alert by phone call",
    "sms": "Alert by SMS",
    "email": "Alert by e-mail",
    "push": "Alert by push notification",
    "critical_alert": "Critical alert",
    "team_wait": "Wait before alerting the whole team (seconds)",
    "policy_id": "Escalation policy",
    "title_field": "Incident title",
    "cause_field": "Incident cause",
    "started_alert_id_field": "Alert id when starting",
    "acknowledged_alert_id_field": "Alert id when acknowledging",
    "resolved_alert_id_field": "Alert id when resolving",
    "other_started_fields": "Other fields when starting",
    "other_acknowledged_fields": "Other fields when acknowledging",
    "other_resolved_fields": "Other fields when resolving",
}


def incoming_fields(policies: Sequence[tuple[str, str]]) -> list[Field]:
    def plain(name: str, section: str, **options: Any) -> Field:
        return field_of(_IN, name, label=INCOMING_LABELS[name], section=section, **options)

    fields = [
        plain("name", "Incoming webhook", hint="Default: Incoming webhook."),
        plain("paused", "Incoming webhook", hint="A paused webhook ignores every request."),
        plain("recovery_period", "Incoming webhook", hint="0 to 86400. Stored."),
    ]
    for name in ("call", "sms", "email", "push", "critical_alert"):
        fields.append(plain(name, "Alerts", hint=""))
    fields.append(plain("team_wait", "Alerts"))
    fields.append(plain("policy_id", "Alerts", choices=policies))
    for kind, words in RULE_WORDS.items():
        fields.append(
            Field(
                name=f"{kind}_rule_type",
                label=f"Requests that {words}",
                input="select",
                hint="Unused: any request starts one (unless one is open)."
                if kind == "started"
                else "Unused: no request does.",
                choices=RULE_TYPE_CHOICES,
                required=True,
                section="Rules",
            )
        )
        fields.append(
            Field(
                name=f"{kind}_rules",
                label=f"Rules to {words}",
                input="textarea",
                hint=RULE_EXAMPLE,
                section="Rules",
            )
        )
    for name in (*incoming_schemas.SINGLE_FIELDS, *incoming_schemas.FIELD_LISTS):
        fields.append(
            Field(
                name=name,
                label=INCOMING_LABELS[name],
                input="textarea",
                hint=LIST_EXAMPLE if name in JSON_LISTS else FIELD_EXAMPLE,
                section="What the incident says",
            )
        )
    return fields


def _json_text(value: Any) -> str:
    if value is None or value == []:
        return ""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def incoming_values(fields: Sequence[Field], row: IncomingWebhook | None) -> dict[str, Raw]:
    if row is None:
        return initial(fields, incoming.DEFAULTS)
    values = incoming.shared_attributes(row)
    shown = initial([f for f in fields if f.name not in JSON_FIELDS], values)
    shown.update({name: _json_text(values[name]) for name in JSON_FIELDS})
    return shown


def incoming_body(
    fields: Sequence[Field], raw: Mapping[str, Raw], *, creating: bool
) -> dict[str, Any]:
    """The API's body; a JSON field that is not JSON is an InvalidRequest naming it."""
    plain = [f for f in fields if f.name not in JSON_FIELDS]
    body = body_of(plain, raw, creating=creating)
    problems: list[Problem] = []
    for name in JSON_FIELDS:
        text = str(raw.get(name, "")).strip()
        if not text:
            if not creating:
                body[name] = [] if name in JSON_LISTS else None
            continue
        try:
            body[name] = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            problems.append((name, f"{name} is not valid JSON: {exc}"))
    if problems:
        raise InvalidRequest(problems)
    return body


def _incoming_page(
    fields: list[Field], values: Mapping[str, Raw], row_id: int | None = None
) -> FormPage:
    return FormPage(
        title="New incoming webhook" if row_id is None else "Edit incoming webhook",
        action=f"{INCOMING}/new" if row_id is None else f"{INCOMING}/{row_id}/edit",
        back="/integrations" if row_id is None else f"{INCOMING}/{row_id}",
        submit="Create incoming webhook" if row_id is None else "Save incoming webhook",
        fields=fields,
        values=values,
        section=SECTION,
    )


async def _policies(db: AsyncSession, who: Viewer) -> list[tuple[str, str]]:
    return await choices(db, Policy, who.team_id)


@router.get(INCOMING + "/new")
async def new_incoming(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    db = await request_sessions(request).read()
    fields = incoming_fields(await _policies(db, who))
    return show(request, who, _incoming_page(fields, incoming_values(fields, None)))


@router.post(INCOMING + "/new")
async def create_incoming(request: Request, who: Signed) -> Response:
    form = await checked_form(request, who)
    who.require(Action.EDIT)
    fields = incoming_fields([])
    raw = posted(fields, form)
    now = request.app.state.ctx.clock.now()

    async def store(db: AsyncSession) -> tuple[str, int, str]:
        body = incoming_body(fields, raw, creating=True)
        data = accepted(*checked(incoming_schemas.WebhookCreate, body))
        row = await incoming.make(db, _caller(who), now, data)
        return "incoming_webhook.created", row.id, row.name

    async def again(db: AsyncSession) -> FormPage:
        return _incoming_page(incoming_fields(await _policies(db, who)), raw)

    return await save(
        request,
        who,
        subject_type="incoming_webhook",
        store=store,
        redirect=lambda found: f"{INCOMING}/{found}?done=saved",
        again=again,
    )


async def _find_incoming(db: AsyncSession, who: Viewer, row_id: str) -> IncomingWebhook:
    return await incoming.get(
        db, team_id=who.team_id, object_id=object_id(row_id, incoming_schemas.TYPE)
    )


def curl_example(url: str) -> str:
    body = '{"title": "Disk almost full on db-1", "status": "firing"}'
    return f"curl -X POST '{url}' \\\n  -H 'Content-Type: application/json' \\\n  -d '{body}'"


@router.get(INCOMING + "/{row_id}")
async def incoming_page(request: Request, who: Signed, row_id: str) -> Response:
    who.require(Action.READ)
    db = await request_sessions(request).read()
    row = await _find_incoming(db, who, row_id)
    url = incoming.render(row, who.team_name, public_base(request, request.app.state.ctx))[
        "attributes"
    ]["url"]
    policy = None
    if row.policy_id is not None:
        found = await db.get(Policy, row.policy_id)
        policy = found.name if found is not None and found.team_id == who.team_id else None
    return render(
        request,
        "integration_incoming.html",
        viewer=who,
        section=SECTION,
        row=row,
        url=url,
        curl=curl_example(url),
        methods=RECEIVE_METHODS,
        policy=policy,
        rule_words=RULE_WORDS,
        rule_types=dict(RULE_TYPE_CHOICES),
        rules={kind: getattr(row, f"{kind}_rules") for kind in RULE_WORDS},
        notice=NOTICES.get(request.query_params.get("done", "")),
    )


@router.get(INCOMING + "/{row_id}/edit")
async def edit_incoming(request: Request, who: Signed, row_id: str) -> Response:
    who.require(Action.EDIT)
    db = await request_sessions(request).read()
    row = await _find_incoming(db, who, row_id)
    fields = incoming_fields(await _policies(db, who))
    return show(request, who, _incoming_page(fields, incoming_values(fields, row), row.id))


@router.post(INCOMING + "/{row_id}/edit")
async def update_incoming(request: Request, who: Signed, row_id: str) -> Response:
    form = await checked_form(request, who)
    who.require(Action.EDIT)
    fields = incoming_fields([])
    raw = posted(fields, form)
    found = object_id(row_id, incoming_schemas.TYPE)
    now = request.app.state.ctx.clock.now()

    async def store(db: AsyncSession) -> tuple[str, int, str]:
        row = await incoming.get(db, team_id=who.team_id, object_id=found)
        body = incoming_body(fields, raw, creating=False)
        data = accepted(
            *checked(
                incoming_schemas.WebhookUpdate, body, not_null=incoming_schemas.NOT_NULL_FIELDS
            )
        )
        await incoming.change(db, _caller(who), row, now, data)
        return "incoming_webhook.updated", row.id, row.name

    async def again(db: AsyncSession) -> FormPage:
        return _incoming_page(incoming_fields(await _policies(db, who)), raw, found)

    return await save(
        request,
        who,
        subject_type="incoming_webhook",
        store=store,
        redirect=lambda found: f"{INCOMING}/{found}?done=saved",
        again=again,
    )


@router.post(INCOMING + "/{row_id}/delete")
async def delete_incoming(request: Request, who: Signed, row_id: str) -> Response:
    now = request.app.state.ctx.clock.now()

    async def remove(db: AsyncSession, row: Any) -> None:
        await incoming.remove(db, row, now)

    return await _delete(
        request,
        who,
        subject_type="incoming_webhook",
        find=lambda db: _find_incoming(db, who, row_id),
        remove=remove,
        action=f"{INCOMING}/{row_id}/delete",
        what="incoming webhook",
        detail="Its URL stops working at once; its open incident is resolved; its incidents "
        "stay, as history.",
    )
