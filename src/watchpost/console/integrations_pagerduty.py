"""/integrations/pagerduty: the team's PagerDuty integrations in the console (listed with
the incoming webhooks on /integrations, console/integrations.py): each one's page, create and
edit forms and a confirmed delete, through pagerduty/service.py with an audit entry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.auth import Viewer, permitted_form, read_db
from watchpost.console.form_kit import FormPage, Saved, save, show
from watchpost.console.forms import (
    Field,
    Raw,
    body_of,
    field_of,
    initial,
    posted,
)
from watchpost.console.integrations import (
    NOTICES,
    PAGERDUTY,
    SECTION,
    _caller,
    _delete,
)
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import render
from watchpost.pagerduty import schemas as pagerduty_schemas
from watchpost.pagerduty import service as pagerduty
from watchpost.pagerduty.models import PagerDutyIntegration
from watchpost.people.roles import Action
from watchpost.problems import accepted, checked
from watchpost.validation import object_id
from watchpost.writing import Writing

router = console_router()
PAGERDUTY_SAVED: Final = Saved(
    "pagerduty_integration", lambda found: f"{PAGERDUTY}/{found}?done=saved"
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
    form = await permitted_form(request, who, Action.EDIT)
    raw = posted(pagerduty_fields(), form)
    ctx = request.app.state.ctx

    async def store(write: Writing) -> tuple[str, int, str]:
        body = body_of(pagerduty_fields(), raw, creating=True)
        data = accepted(*checked(pagerduty_schemas.IntegrationCreate, body))
        row = await pagerduty.make(write.session, _caller(who), ctx, data)
        return "pagerduty_integration.created", row.id, row.name

    async def again(db: AsyncSession) -> FormPage:
        return _pagerduty_page(raw)

    return await save(request, who, PAGERDUTY_SAVED, store=store, again=again)


@router.get(PAGERDUTY + "/{row_id}")
async def pagerduty_page(request: Request, who: Signed, row_id: str) -> Response:
    db = await read_db(request, who, Action.READ)
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
    db = await read_db(request, who, Action.EDIT)
    row = await _find_pagerduty(db, who, row_id)
    values = initial(pagerduty_fields(), pagerduty.render(row, who.team_name)["attributes"])
    return show(request, who, _pagerduty_page(values, row.id))


@router.post(PAGERDUTY + "/{row_id}/edit")
async def update_pagerduty(request: Request, who: Signed, row_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    raw = posted(pagerduty_fields(), form)
    found = object_id(row_id, pagerduty.TYPE)
    ctx = request.app.state.ctx

    async def store(write: Writing) -> tuple[str, int, str]:
        row = await pagerduty.get(write.session, team_id=who.team_id, object_id=found)
        body = body_of(pagerduty_fields(), raw, creating=False)
        data = accepted(
            *checked(
                pagerduty_schemas.IntegrationUpdate,
                body,
                not_null=pagerduty_schemas.NOT_NULL_FIELDS,
            )
        )
        await pagerduty.change(write.session, _caller(who), row, ctx, data)
        return "pagerduty_integration.updated", row.id, row.name

    async def again(db: AsyncSession) -> FormPage:
        return _pagerduty_page(raw, found)

    return await save(request, who, PAGERDUTY_SAVED, store=store, again=again)


@router.post(PAGERDUTY + "/{row_id}/delete")
async def delete_pagerduty(request: Request, who: Signed, row_id: str) -> Response:
    return await _delete(request, who, PAGERDUTY, row_id, _find_pagerduty, pagerduty.remove)
