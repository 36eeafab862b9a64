"""/status-pages/{id}/sections/{id}/edit and …/resources/{id}/edit: a section renamed, a
resource's own attributes edited (public name, explanation, widget, fixed position and
what marks it down or degraded, with their metadata rules as rows: status_pages_rules.py).

Pages of their own, linked from the editor's rows, so the editor stays one light form. Each
save is the API's PATCH: the body the API would receive, checked by its schema and stored by
`sections.update_section` / `resources.update_resource` in one transaction with the audit
entry; its problems are shown beside their input and nothing is stored. Admins (`edit`), as
the rest of the editor; another team's page, section or resource is a 404."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console import status_pages_rules as rules_kit
from watchpost.console.auth import Viewer, permitted_form, read_db, write_db
from watchpost.console.errors import ConsoleRoute
from watchpost.console.form_kit import stored_or_again
from watchpost.console.forms import Field, Raw, field_errors, field_of, initial, posted
from watchpost.console.status_pages_kit import SECTION, Signed, audit, editor_url, team_page
from watchpost.console.status_pages_layout import KIND_WORDS, WIDGETS, _section, section_subject
from watchpost.console.status_pages_resources import _resource, audit_resource, change_resource
from watchpost.console.web import form_page
from watchpost.errors import InvalidRequest
from watchpost.people.roles import Action
from watchpost.problems import parse
from watchpost.status_pages import resources, sections
from watchpost.status_pages.metadata_rules import rule_out
from watchpost.status_pages.models import StatusPage, StatusPageResource, StatusPageSection
from watchpost.status_pages.rendering import public_name
from watchpost.status_pages.resource_rows import resource_row
from watchpost.status_pages.resource_types import DEFAULT_WIDGET, MANUAL, RESOURCE_KINDS
from watchpost.status_pages.schemas import ResourceFields, SectionUpdate

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
SECTION_EDIT: Final = "/status-pages/{page_id}/sections/{section_id}/edit"
RESOURCE_EDIT: Final = "/status-pages/{page_id}/resources/{resource_id}/edit"
CHANGED: Final = (
    "public_name",
    "explanation",
    "widget_type",
    "fixed_position",
    "mark_as_down_for",
    "mark_as_down_metadata_rule",
    "mark_as_degraded_for",
    "mark_as_degraded_metadata_rule",
)
"""The resource's attributes the form edits (an audit entry names those it changed)."""


# ------------------------------------------------------------------------ a section


def _section_form(
    request: Request,
    who: Viewer,
    page: StatusPage,
    section: StatusPageSection,
    *,
    name: str,
    errors: dict[str, str] | None = None,
) -> Response:
    return form_page(
        request,
        "status_section_form.html",
        who,
        errors=errors,
        section=SECTION,
        page=page,
        part=section,
        name=name,
    )


@router.get(SECTION_EDIT)
async def edit_section(request: Request, who: Signed, page_id: str, section_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    page = await team_page(db, who, page_id)
    section = await _section(db, page, section_id)
    return _section_form(request, who, page, section, name=section.name)


@router.post(SECTION_EDIT)
async def rename_section(request: Request, who: Signed, page_id: str, section_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    name = str(form.get("name", ""))

    async def store(db: AsyncSession) -> str:
        page = await team_page(db, who, page_id, lock=True)
        section = await _section(db, page, section_id)
        before = section.name
        data = parse(SectionUpdate, {"name": name})
        await sections.update_section(
            db,
            page=page,
            section=section,
            data=data,
            sent={"name"},
            now=request.app.state.ctx.clock.now(),
        )
        subject = section_subject(page, section)
        details = {"changed": ["name"] if section.name != before else []}
        await audit(request, db, who, "status_page_section.updated", subject, details)
        return editor_url(page, "section_saved", f"section-{section.id}")

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        page = await team_page(db, who, page_id)
        section = await _section(db, page, section_id)
        errors = field_errors(exc.problems, ["name"])
        return _section_form(request, who, page, section, name=name, errors=errors)

    return await stored_or_again(request, store, again)


# ------------------------------------------------------------------------ a resource


def resource_fields(resource_type: str, current_widget: str) -> list[Field]:
    """The form's inputs other than the rules' keys and values."""
    widgets = [w for w in RESOURCE_KINDS[resource_type].widgets if w in WIDGETS]
    if current_widget not in widgets:
        widgets.append(current_widget)
    return [
        field_of(
            ResourceFields,
            "public_name",
            label="Public name",
            hint="Shown on the public page. Empty: the item's own name.",
        ),
        field_of(
            ResourceFields,
            "explanation",
            label="Explanation",
            hint="Shown behind a help icon on the public page. Optional.",
        ),
        Field(
            "widget_type",
            "Widget",
            "select",
            choices=tuple((w, WIDGETS.get(w, w)) for w in widgets),
            required=True,
        ),
        field_of(
            ResourceFields,
            "fixed_position",
            label="Fixed position",
            hint="Keeps its position number when the resources around it move.",
        ),
        *(
            Field(rule.mode, rule.mode_label, "select", choices=rules_kit.MODES, required=True)
            for rule in rules_kit.RULES
        ),
    ]


def _stored(row: StatusPageResource) -> dict[str, Any]:
    """The resource's attributes as the API shows them (the rules by rule_out)."""
    values = {name: getattr(row, name) for name in CHANGED}
    for rule in rules_kit.RULES:
        values[rule.field] = rule_out(getattr(row, rule.field))
    return values


async def _resource_form(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    page: StatusPage,
    row: StatusPageResource,
    values: Mapping[str, Raw],
    rules: rules_kit.Rules,
    *,
    errors: dict[str, str] | None = None,
) -> Response:
    plain = resource_row(row)
    targets = await resources.load_targets(db, [plain])
    target = targets.get((plain.resource_type, plain.resource_id))
    return form_page(
        request,
        "status_resource_form.html",
        who,
        errors=errors,
        section=SECTION,
        page=page,
        resource=row,
        name=public_name(plain, target),
        item=public_name(plain._replace(public_name=None), target),
        kind=KIND_WORDS.get(row.resource_type, row.resource_type),
        fields={f.name: f for f in resource_fields(row.resource_type, row.widget_type)},
        values=values,
        rules=rules,
        rule_list=rules_kit.RULES,
        most=rules_kit.MOST_VALUES,
    )


@router.get(RESOURCE_EDIT)
async def edit_resource(request: Request, who: Signed, page_id: str, resource_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    page = await team_page(db, who, page_id)
    row = await _resource(db, page, resource_id)
    stored = _stored(row)
    values = initial(resource_fields(row.resource_type, row.widget_type), stored)
    return await _resource_form(request, who, db, page, row, values, rules_kit.rules_of(stored))


def resource_body(
    fields: list[Field], values: Mapping[str, Raw], rules: rules_kit.Rules
) -> dict[str, Any]:
    """The API's PATCH body for the form: every field as typed (an empty public name clears
    it), the rules as status_pages_rules.rule_body makes them."""
    body: dict[str, Any] = {}
    for f in fields:
        value = values.get(f.name, "")
        body[f.name] = bool(value) if f.input == "checkbox" else str(value)
    return body | rules_kit.rule_body(rules, body)


@router.post(RESOURCE_EDIT)
async def save_resource(request: Request, who: Signed, page_id: str, resource_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    rules = rules_kit.rules_posted(form)
    fields = resource_fields(MANUAL, DEFAULT_WIDGET)  # their choices matter only when shown
    values = posted(fields, form)
    op = str(form.get("op") or "save")
    db = await write_db(request)
    if op != "save":  # an editing button: the form again, nothing stored
        async with db.begin():
            page = await team_page(db, who, page_id)
            row = await _resource(db, page, resource_id)
            moved = rules_kit.moved(rules, op)
            return await _resource_form(request, who, db, page, row, values, moved)
    body = resource_body(fields, values, rules)

    async def store(db: AsyncSession) -> str:
        page = await team_page(db, who, page_id, lock=True)
        row = await _resource(db, page, resource_id)
        before = _stored(row)
        await change_resource(request, who, db, page, row, body)
        after = _stored(row)
        targets = await resources.load_targets(db, [resource_row(row)])
        shown = public_name(resource_row(row), targets.get((row.resource_type, row.resource_id)))
        changed = [name for name in CHANGED if before[name] != after[name]]
        await audit_resource(
            request, db, who, "updated", (page, row.id, shown), {"changed": changed}
        )
        return editor_url(page, "resource_saved", f"resource-{row.id}")

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        errors = rules_kit.errors_of(exc.problems, rules, [f.name for f in fields])
        page = await team_page(db, who, page_id)
        row = await _resource(db, page, resource_id)
        return await _resource_form(request, who, db, page, row, values, rules, errors=errors)

    return await stored_or_again(request, store, again)
