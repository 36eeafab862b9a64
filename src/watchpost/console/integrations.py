"""/integrations: the team's incoming webhooks and PagerDuty integrations in the console.

One page lists both kinds (each paged in SQL on its own: `incoming_page`, `pagerduty_page`);
each object has its page, a create and an edit form, and a confirmed delete. An incoming
webhook's page shows its receiving URL (this server's public scheme and host, as the API
shows it) and a ready-to-paste curl example. Every change goes through the domain functions
the API calls (incoming/service.py, pagerduty/service.py) with an audit entry in the same
transaction; the domain's problems come back beside their fields. Reading needs
Action.READ; every change Action.EDIT. Another team's object is a 404.

An incoming webhook's rules and extracted fields are the hosted API's lists of objects: the
form takes each as JSON (the API's own shape, checked by the domain); a text that is not
JSON is the one problem the console names itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Annotated, Any, Final

import orjson
from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.audit.service import record
from watchpost.console.account import actor
from watchpost.console.auth import Viewer, checked_form, viewer, write_db
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
from watchpost.console.notices import done_query
from watchpost.console.web import render
from watchpost.console.webhooks import page_number
from watchpost.errors import InvalidRequest, Problem
from watchpost.http.deps import request_sessions
from watchpost.incoming import schemas as incoming_schemas
from watchpost.incoming import service as incoming
from watchpost.incoming.endpoints import public_base
from watchpost.incoming.models import IncomingWebhook
from watchpost.incoming.receive_endpoints import METHODS as RECEIVE_METHODS
from watchpost.listing import PageRequest
from watchpost.pagerduty import schemas as pagerduty_schemas
from watchpost.pagerduty import service as pagerduty
from watchpost.pagerduty.models import PagerDutyIntegration
from watchpost.people.roles import Action
from watchpost.policies.models import Policy
from watchpost.problems import accepted, checked
from watchpost.teams.service import Principal
from watchpost.validation import object_id

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
Signed = Annotated[Viewer, Depends(viewer)]

SECTION: Final = "integrations"
PAGE_SIZE: Final = 25
INCOMING: Final = "/integrations/incoming"
PAGERDUTY: Final = "/integrations/pagerduty"
NOTICES: Final = {"saved": "Saved.", "deleted": "Deleted."}


def _caller(who: Viewer) -> Principal:
    """The signed-in team as the domain's caller (the services read its team only; a
    person has no token, hence token_id 0)."""
    return Principal(team_id=who.team_id, team_name=who.team_name, token_id=0)


def _paging(request: Request, name: str) -> PageRequest:
    other = "pagerduty_page" if name == "incoming_page" else "incoming_page"
    kept = request.query_params.get(other)
    return PageRequest(
        page=page_number(request.query_params.get(name)),
        per_page=PAGE_SIZE,
        base_url=request.url.path,
        other_params=((other, kept),) if kept else (),
    )


def _named_links(links: Mapping[str, str | None], name: str) -> dict[str, str | None]:
    """The listing's links with its page parameter named for its kind."""
    return {
        key: None
        if url is None
        else url.replace("?page=", f"?{name}=").replace("&page=", f"&{name}=")
        for key, url in links.items()
    }


@router.get("/integrations")
async def list_page(request: Request, who: Signed) -> Response:
    who.require(Action.READ)
    db = await request_sessions(request).read()
    caller = _caller(who)
    incoming_paging = _paging(request, "incoming_page")
    pagerduty_paging = _paging(request, "pagerduty_page")
    webhooks = await incoming.page(db, caller, incoming_paging)
    integrations = await pagerduty.page(db, caller, pagerduty_paging)
    return render(
        request,
        "integrations.html",
        viewer=who,
        section=SECTION,
        webhooks=webhooks.data,
        webhook_links=_named_links(webhooks.links, "incoming_page"),
        webhook_page=incoming_paging.page,
        integrations=integrations.data,
        integration_links=_named_links(integrations.links, "pagerduty_page"),
        integration_page=pagerduty_paging.page,
        notice=NOTICES.get(request.query_params.get("done", "")),
    )


# ------------------------------------------------------------------------ shared kit


async def _delete(
    request: Request,
    who: Viewer,
    *,
    subject_type: str,
    find: Callable[[AsyncSession], Awaitable[Any]],
    remove: Callable[[AsyncSession, Any], Awaitable[None]],
    action: str,
    what: str,
    detail: str,
) -> Response:
    """Delete after a confirmation (the server's own page when JavaScript is off)."""
    form = await checked_form(request, who)
    who.require(Action.EDIT)
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        row = await find(db)
        if str(form.get("confirm", "")) != "yes":
            question = f"Delete the {what} {row.name}?"
            return render(
                request,
                "confirm.html",
                viewer=who,
                section=SECTION,
                title=question,
                question=question,
                detail=detail,
                action=action,
                button=f"Delete the {what}",
                back=action.rsplit("/", 1)[0],
                fields=[],
            )
        await record(
            db,
            team_id=who.team_id,
            actor=actor(request, who),
            action=f"{subject_type}.deleted",
            now=now,
            subject_type=subject_type,
            subject_id=row.id,
            subject=row.name,
        )
        await remove(db, row)
    return RedirectResponse("/integrations?" + done_query("deleted"), status_code=303)


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


# ----------------------------------------------------------------- PagerDuty integrations

_PD = pagerduty_schemas.IntegrationCreate
SEVERITIES: Final = (
    ("info", "Info"),
    ("warning", "Warning"),
    ("error", "Error"),
    ("critical", "Critical"),
)


def pagerduty_fields() -> list[Field]:
    section = "PagerDuty integration"
    return [
        field_of(_PD, "name", label="Name", hint="Default: PagerDuty.", section=section),
        field_of(
            _PD,
            "key",
            label="Routing key",
            required=True,
            hint="The Events API v2 integration key of the PagerDuty service (letters, "
            "digits, - and _).",
            section=section,
        ),
        field_of(
            _PD,
            "severity",
            label="Severity",
            required=True,
            hint="The severity of the alerts it raises.",
            choices=SEVERITIES,
            section=section,
        ),
        field_of(
            _PD,
            "notify_alongside_primary_responder",
            label="Tell it of every incident without an escalation policy",
            hint="Otherwise only an escalation policy's step naming it sends to it.",
            section=section,
        ),
    ]


def _pagerduty_page(values: Mapping[str, Raw], row_id: int | None = None) -> FormPage:
    return FormPage(
        title="New PagerDuty integration" if row_id is None else "Edit PagerDuty integration",
        action=f"{PAGERDUTY}/new" if row_id is None else f"{PAGERDUTY}/{row_id}/edit",
        back="/integrations" if row_id is None else f"{PAGERDUTY}/{row_id}",
        submit="Create integration" if row_id is None else "Save integration",
        fields=pagerduty_fields(),
        values=values,
        section=SECTION,
    )


async def _find_pagerduty(db: AsyncSession, who: Viewer, row_id: str) -> PagerDutyIntegration:
    return await pagerduty.get(db, team_id=who.team_id, object_id=object_id(row_id, pagerduty.TYPE))


@router.get(PAGERDUTY + "/new")
async def new_pagerduty(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    values = initial(
        pagerduty_fields(), {"severity": "critical", "notify_alongside_primary_responder": True}
    )
    return show(request, who, _pagerduty_page(values))


@router.post(PAGERDUTY + "/new")
async def create_pagerduty(request: Request, who: Signed) -> Response:
    form = await checked_form(request, who)
    who.require(Action.EDIT)
    raw = posted(pagerduty_fields(), form)
    ctx = request.app.state.ctx

    async def store(db: AsyncSession) -> tuple[str, int, str]:
        body = body_of(pagerduty_fields(), raw, creating=True)
        data = accepted(*checked(pagerduty_schemas.IntegrationCreate, body))
        row = await pagerduty.make(db, _caller(who), ctx, data)
        return "pagerduty_integration.created", row.id, row.name

    async def again(db: AsyncSession) -> FormPage:
        return _pagerduty_page(raw)

    return await save(
        request,
        who,
        subject_type="pagerduty_integration",
        store=store,
        redirect=lambda found: f"{PAGERDUTY}/{found}?done=saved",
        again=again,
    )


@router.get(PAGERDUTY + "/{row_id}")
async def pagerduty_page(request: Request, who: Signed, row_id: str) -> Response:
    who.require(Action.READ)
    db = await request_sessions(request).read()
    row = await _find_pagerduty(db, who, row_id)
    return render(
        request,
        "integration_pagerduty.html",
        viewer=who,
        section=SECTION,
        row=row,
        severity=dict(SEVERITIES).get(row.severity, row.severity),
        notice=NOTICES.get(request.query_params.get("done", "")),
    )


@router.get(PAGERDUTY + "/{row_id}/edit")
async def edit_pagerduty(request: Request, who: Signed, row_id: str) -> Response:
    who.require(Action.EDIT)
    db = await request_sessions(request).read()
    row = await _find_pagerduty(db, who, row_id)
    values = initial(pagerduty_fields(), pagerduty.render(row, who.team_name)["attributes"])
    return show(request, who, _pagerduty_page(values, row.id))


@router.post(PAGERDUTY + "/{row_id}/edit")
async def update_pagerduty(request: Request, who: Signed, row_id: str) -> Response:
    form = await checked_form(request, who)
    who.require(Action.EDIT)
    raw = posted(pagerduty_fields(), form)
    found = object_id(row_id, pagerduty.TYPE)
    ctx = request.app.state.ctx

    async def store(db: AsyncSession) -> tuple[str, int, str]:
        row = await pagerduty.get(db, team_id=who.team_id, object_id=found)
        body = body_of(pagerduty_fields(), raw, creating=False)
        data = accepted(
            *checked(
                pagerduty_schemas.IntegrationUpdate,
                body,
                not_null=pagerduty_schemas.NOT_NULL_FIELDS,
            )
        )
        await pagerduty.change(db, _caller(who), row, ctx, data)
        return "pagerduty_integration.updated", row.id, row.name

    async def again(db: AsyncSession) -> FormPage:
        return _pagerduty_page(raw, found)

    return await save(
        request,
        who,
        subject_type="pagerduty_integration",
        store=store,
        redirect=lambda found: f"{PAGERDUTY}/{found}?done=saved",
        again=again,
    )


@router.post(PAGERDUTY + "/{row_id}/delete")
async def delete_pagerduty(request: Request, who: Signed, row_id: str) -> Response:
    async def remove(db: AsyncSession, row: Any) -> None:
        await pagerduty.remove(db, row)

    return await _delete(
        request,
        who,
        subject_type="pagerduty_integration",
        find=lambda db: _find_pagerduty(db, who, row_id),
        remove=remove,
        action=f"{PAGERDUTY}/{row_id}/delete",
        what="PagerDuty integration",
        detail="Incidents are no longer sent to its PagerDuty service.",
    )
