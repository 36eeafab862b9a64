"""Forms to create and edit collector targets and groups (monitor and heartbeat groups), the
same way as editing.py: the API's body, the domain's own function, its problems beside the
fields."""

from __future__ import annotations

from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.collectors import service as collectors
from watchpost.collectors import target_requests
from watchpost.collectors.models import Collector
from watchpost.collectors.target_kinds import KIND_RULES, KINDS
from watchpost.console import form_specs
from watchpost.console.auth import permitted_form, read_db
from watchpost.console.form_kit import Chooser, FormPage, Saved, choices, posted_body, save, show
from watchpost.console.forms import Field, Raw, body_of, initial, posted
from watchpost.console.signed_routes import Signed, console_router
from watchpost.errors import NotFound
from watchpost.groups import lists as group_lists
from watchpost.groups import service as groups
from watchpost.groups.group_kinds import HEARTBEAT_GROUPS, MONITOR_GROUPS, GroupKind
from watchpost.http.deps import request_sessions
from watchpost.people.roles import Action
from watchpost.validation import object_id
from watchpost.writing import Writing

router = console_router()
TARGET_SAVED: Final = Saved(collectors.TARGET_SUBJECT, lambda found: f"/targets/{found}")

# ------------------------------------------------------------------- collector targets

KIND_WORDS: Final = {"postgres": "PostgreSQL", "mysql": "MySQL", "mongodb": "MongoDB"}
KIND_CHOICES: Final = [(kind, KIND_WORDS.get(kind, kind.capitalize())) for kind in KINDS]


def _kind(value: object) -> str:
    return value if isinstance(value, str) and value in KIND_RULES else KINDS[0]


def _target_page(
    *,
    kind: str,
    collectors_: list[tuple[str, str]],
    collector: str,
    values: dict[str, Raw] | None,
    defaults: dict[str, Any],
    target_id: int | None = None,
    secrets: dict[str, bool] | None = None,
) -> FormPage:
    fields = form_specs.target_fields(kind)
    creating = target_id is None
    chooser = None
    if creating and collectors_:
        chooser = Chooser(
            "/targets/new",
            [
                {
                    "id": "collector_id",
                    "name": "collector",
                    "label": "Collector",
                    "choices": collectors_,
                    "value": collector,
                },
                {
                    "id": "kind",
                    "name": "kind",
                    "label": "Kind",
                    "choices": KIND_CHOICES,
                    "value": kind,
                },
            ],
            "Choose",
        )
    return FormPage(
        title=(
            "New collector target"
            if creating and not collectors_
            else f"{'New' if creating else 'Edit'} {KIND_WORDS.get(kind, kind)} target"
        ),
        action="/targets/new" if creating else f"/targets/{target_id}/edit",
        back="/" if creating else f"/targets/{target_id}",
        submit="Create target" if creating else "Save target",
        fields=fields if collectors_ or not creating else [],
        values=values if values is not None else initial(fields, defaults),
        hidden={"collector_id": collector, "kind": kind} if creating else {},
        secrets=secrets or {},
        chooser=chooser,
        empty=None if collectors_ or not creating else "This team has no collector yet.",
    )


@router.get("/targets/new")
async def new_target(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    kind = _kind(request.query_params.get("kind"))
    db = await request_sessions(request).read()
    found = await choices(db, Collector, who.team_id)
    wanted = request.query_params.get("collector", "")
    collector = (
        wanted if wanted in {value for value, _ in found} else (found[0][0] if found else "")
    )
    page = _target_page(
        kind=kind,
        collectors_=found,
        collector=collector,
        values=None,
        defaults=form_specs.target_defaults(kind),
    )
    return show(request, who, page)


def _target_fields(kind: str) -> list[Field]:
    return form_specs.target_fields(_kind(kind))


@router.post("/targets/new")
async def create_target(request: Request, who: Signed) -> Response:
    sent = await posted_body(request, who, _target_fields, creating=True, chosen="kind")
    kind = _kind(sent.body["kind"])
    collector = str(sent.form.get("collector_id", ""))
    collector_id = object_id(collector, collectors.COLLECTOR)
    raw, body = sent.raw, sent.body

    async def store(write: Writing) -> tuple[str, int, str]:
        row = await target_requests.create_target_from_body(write, collector_id, body)
        return "collector_target.created", row.id, f"{row.kind} {row.host}"

    async def again(db: AsyncSession) -> FormPage:
        return _target_page(
            kind=kind,
            collectors_=await choices(db, Collector, who.team_id),
            collector=collector,
            values=raw,
            defaults={},
        )

    return await save(request, who, TARGET_SAVED, store=store, again=again)


def _secrets(target: Any) -> dict[str, bool]:
    values = collectors.target_values(target)
    return {name: values[name] is not None for name in ("password", "api_key")}


@router.get("/targets/{target_id}/edit")
async def edit_target(request: Request, who: Signed, target_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    target = await target_requests.find_target(
        db, team_id=who.team_id, target_id=object_id(target_id, collectors.TARGET)
    )
    page = _target_page(
        kind=target.kind,
        collectors_=[],
        collector=str(target.collector_id),
        values=None,
        defaults=collectors.target_attributes(target),
        target_id=target.id,
        secrets=_secrets(target),
    )
    return show(request, who, page)


@router.post("/targets/{target_id}/edit")
async def update_target(request: Request, who: Signed, target_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    found = object_id(target_id, collectors.TARGET)
    kept: dict[str, Any] = {}

    async def store(write: Writing) -> tuple[str, int, str]:
        target = await target_requests.find_target(
            write.session, team_id=who.team_id, target_id=found
        )
        fields = form_specs.target_fields(target.kind)
        kept.update(kind=target.kind, raw=posted(fields, form), secrets=_secrets(target))
        body = body_of(fields, kept["raw"], creating=False)
        await target_requests.update_target_from_body(write, target, body)
        return "collector_target.updated", target.id, f"{target.kind} {target.host}"

    async def again(db: AsyncSession) -> FormPage:
        return _target_page(
            kind=kept["kind"],
            collectors_=[],
            collector="",
            values=kept["raw"],
            defaults={},
            target_id=found,
            secrets=kept["secrets"],
        )

    return await save(request, who, TARGET_SAVED, store=store, again=again)


# ------------------------------------------------------------------------------ groups

GROUP_KINDS: Final[dict[str, GroupKind]] = {
    "monitor": MONITOR_GROUPS,
    "heartbeat": HEARTBEAT_GROUPS,
}


def _group_kind(name: str | None) -> tuple[str, GroupKind]:
    kind = GROUP_KINDS.get(name or "")
    if kind is None:
        raise NotFound("group kind", name)
    return str(name), kind


def _group_page(
    name: str,
    kind: GroupKind,
    values: dict[str, Raw] | None,
    defaults: dict[str, Any],
    group_id: int | None = None,
) -> FormPage:
    fields = form_specs.group_fields(kind)
    creating = group_id is None
    return FormPage(
        title=f"New {kind.name}" if creating else f"Edit {kind.name}",
        action=f"/groups/new?kind={name}" if creating else f"/groups/{name}/{group_id}/edit",
        back="/",
        submit=f"Create {kind.name}" if creating else f"Save {kind.name}",
        fields=fields,
        values=values if values is not None else initial(fields, defaults),
    )


@router.get("/groups/new")
async def new_group(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    name, kind = _group_kind(request.query_params.get("kind"))
    return show(request, who, _group_page(name, kind, None, form_specs.group_defaults(kind)))


def _group_fields(kind_name: str | None) -> list[Field]:
    return form_specs.group_fields(_group_kind(kind_name)[1])


@router.post("/groups/new")
async def create_group(request: Request, who: Signed) -> Response:
    chosen = request.query_params.get("kind")
    sent = await posted_body(request, who, lambda _: _group_fields(chosen), creating=True)
    name, kind = _group_kind(chosen)
    raw, body = sent.raw, sent.body

    async def store(write: Writing) -> tuple[str, int, str]:
        group = await groups.create_from_body(kind, write, body)
        return f"{kind.api_type}.created", group.id, group.name

    async def again(db: AsyncSession) -> FormPage:
        return _group_page(name, kind, raw, {})

    return await save(request, who, Saved(kind.api_type, lambda _: "/"), store=store, again=again)


@router.get("/groups/{kind_name}/{group_id}/edit")
async def edit_group(request: Request, who: Signed, kind_name: str, group_id: str) -> Response:
    who.require(Action.EDIT)
    name, kind = _group_kind(kind_name)
    db = await request_sessions(request).read()
    group = await groups.get_group(
        kind, db, team_id=who.team_id, group_id=object_id(group_id, kind.api_type)
    )
    attributes = group_lists.group_resource(kind, group, team_name=who.team_name)["attributes"]
    return show(request, who, _group_page(name, kind, None, attributes, group.id))


@router.post("/groups/{kind_name}/{group_id}/edit")
async def update_group(request: Request, who: Signed, kind_name: str, group_id: str) -> Response:
    sent = await posted_body(request, who, lambda _: _group_fields(kind_name), creating=False)
    name, kind = _group_kind(kind_name)
    found = object_id(group_id, kind.api_type)
    raw, body = sent.raw, sent.body

    async def store(write: Writing) -> tuple[str, int, str]:
        group = await groups.get_group(kind, write.session, team_id=who.team_id, group_id=found)
        await groups.update_from_body(kind, write, group, body)
        return f"{kind.api_type}.updated", group.id, group.name

    async def again(db: AsyncSession) -> FormPage:
        return _group_page(name, kind, raw, {}, found)

    return await save(request, who, Saved(kind.api_type, lambda _: "/"), store=store, again=again)
