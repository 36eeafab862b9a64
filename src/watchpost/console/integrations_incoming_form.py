"""/integrations/incoming/new and …/{id}/edit: an incoming webhook's create and edit form,
its settings as labelled inputs and its rules and fields as rows (integrations_rules.py),
with the example request that would start an incident under the rules in the form
(integrations_example.py).

"Add" and "Remove" are submit buttons (`op`) that show the form again with the rows changed
and every typed value kept; nothing is stored until "Save". The body is the one the API
would receive, checked and stored by incoming/service.py with an audit entry; its problems
are shown beside the row's input. Needs Action.EDIT; another team's webhook is a 404.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console import integrations_rules as rules_kit
from watchpost.console.account import audit
from watchpost.console.auth import Viewer, permitted_form, read_db, write_db
from watchpost.console.form_kit import choices, stored_or_again
from watchpost.console.forms import Field, Raw, body_of, field_of, initial, posted
from watchpost.console.integrations import INCOMING, SECTION, _caller
from watchpost.console.integrations_example import curl_for
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page
from watchpost.errors import InvalidRequest
from watchpost.incoming import schemas as incoming_schemas
from watchpost.incoming import service as incoming
from watchpost.incoming.endpoints import public_base
from watchpost.incoming.models import IncomingWebhook
from watchpost.incoming.receive_endpoints import METHODS as RECEIVE_METHODS
from watchpost.people.roles import Action
from watchpost.policies.models import Policy
from watchpost.problems import accepted, checked
from watchpost.validation import object_id

router = console_router()

_IN = incoming_schemas.WebhookCreate
LABELS: Final = {
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
}


def incoming_fields(policies: Sequence[tuple[str, str]]) -> list[Field]:
    """The form's inputs other than the rules and fields (the rule types are with them)."""

    def plain(name: str, section: str, **options: Any) -> Field:
        return field_of(_IN, name, label=LABELS[name], section=section, **options)

    fields = [
        plain("name", "Incoming webhook", hint="Default: Incoming webhook."),
        plain("paused", "Incoming webhook", hint="A paused webhook ignores every request."),
        plain("recovery_period", "Incoming webhook", hint="0 to 86400. Stored."),
    ]
    for name in ("call", "sms", "email", "push", "critical_alert"):
        fields.append(plain(name, "Alerts", hint=""))
    fields.append(plain("team_wait", "Alerts"))
    fields.append(plain("policy_id", "Alerts", choices=policies))
    for kind, words in rules_kit.RULE_WORDS.items():
        fields.append(
            Field(
                name=f"{kind}_rule_type",
                label=f"Requests that {words}",
                input="select",
                hint="Unused: any request starts one (unless one is open)."
                if kind == "started"
                else "Unused: no request does.",
                choices=rules_kit.RULE_TYPE_CHOICES,
                required=True,
                section="Rules",
            )
        )
    return fields


async def _find(db: AsyncSession, who: Viewer, row_id: str) -> IncomingWebhook:
    return await incoming.get(
        db, team_id=who.team_id, object_id=object_id(row_id, incoming_schemas.TYPE)
    )


async def _form(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    row: IncomingWebhook | None,
    values: Mapping[str, Raw],
    rows: rules_kit.Rows,
    *,
    errors: dict[str, str] | None = None,
) -> Response:
    fields = incoming_fields(await choices(db, Policy, who.team_id))
    sections: dict[str, list[Field]] = {}
    for item in fields:
        sections.setdefault(item.section or "Details", []).append(item)
    curl, note = None, None
    if row is not None:
        base = public_base(request, request.app.state.ctx)
        url = incoming.render(row, who.team_name, base)["attributes"]["url"]
        started = rules_kit.body_of({"started_rules": rows.get("started_rules", [])})
        shown = {
            "started_rule_type": values.get("started_rule_type"),
            "started_rules": started["started_rules"],
            "title_field": rules_kit.body_of(rows)["title_field"],
        }
        curl, note = await curl_for(url, shown)
    return form_page(
        request,
        "integration_incoming_form.html",
        who,
        errors=errors,
        section=SECTION,
        title="New incoming webhook" if row is None else f"Edit {row.name}",
        action=f"{INCOMING}/new" if row is None else f"{INCOMING}/{row.id}/edit",
        back="/integrations" if row is None else f"{INCOMING}/{row.id}",
        submit="Create incoming webhook" if row is None else "Save incoming webhook",
        sections=list(sections.items()),
        values=values,
        rows=rows,
        groups=rules_kit.BY_NAME,
        rule_words=rules_kit.RULE_WORDS,
        targets=rules_kit.TARGETS,
        rule_matches=rules_kit.RULE_MATCHES,
        field_matches=rules_kit.FIELD_MATCHES,
        curl=curl,
        note=note,
        methods=RECEIVE_METHODS,
    )


@router.get(INCOMING + "/new")
async def new_incoming(request: Request, who: Signed) -> Response:
    db = await read_db(request, who, Action.EDIT)
    values = initial(incoming_fields([]), incoming.DEFAULTS)
    return await _form(request, who, db, None, values, rules_kit.rows_of({}))


@router.get(INCOMING + "/{row_id}/edit")
async def edit_incoming(request: Request, who: Signed, row_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    row = await _find(db, who, row_id)
    stored = incoming.shared_attributes(row)
    values = initial(incoming_fields([]), stored)
    return await _form(request, who, db, row, values, rules_kit.rows_of(stored))


async def _save(request: Request, who: Viewer, row_id: str | None) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    fields = incoming_fields([])
    values = posted(fields, form)
    rows = rules_kit.rows_posted(form)
    op = str(form.get("op") or "save")
    db = await write_db(request)
    if op != "save":  # an editing button: the form again, nothing stored
        async with db.begin():
            row = None if row_id is None else await _find(db, who, row_id)
            return await _form(request, who, db, row, values, rules_kit.moved(rows, op))
    now = request.app.state.ctx.clock.now()

    async def store(db: AsyncSession) -> str:
        row = None if row_id is None else await _find(db, who, row_id)
        body = body_of(fields, values, creating=row is None) | rules_kit.body_of(rows)
        if row is None:
            data = accepted(*checked(incoming_schemas.WebhookCreate, body))
            row = await incoming.make(db, _caller(who), now, data)
            action = "incoming_webhook.created"
        else:
            update = accepted(
                *checked(
                    incoming_schemas.WebhookUpdate,
                    body,
                    not_null=incoming_schemas.NOT_NULL_FIELDS,
                )
            )
            await incoming.change(db, _caller(who), row, now, update)
            action = "incoming_webhook.updated"
        await audit(db, request, who, action, now, ("incoming_webhook", row.id, row.name))
        return f"{INCOMING}/{row.id}?done=saved"

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        errors = rules_kit.errors_of(exc.problems, rows, [f.name for f in fields])
        row = None if row_id is None else await _find(db, who, row_id)
        return await _form(request, who, db, row, values, rows, errors=errors)

    return await stored_or_again(request, store, again)


@router.post(INCOMING + "/new")
async def create_incoming(request: Request, who: Signed) -> Response:
    return await _save(request, who, None)


@router.post(INCOMING + "/{row_id}/edit")
async def update_incoming(request: Request, who: Signed, row_id: str) -> Response:
    return await _save(request, who, row_id)
