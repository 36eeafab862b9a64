"""Forms to create and edit monitors and heartbeats (targets and groups: editing_more.py;
what they share: form_kit.py).

Each POST builds the JSON body the API would receive (forms.body_of) and hands it to the same
domain function the API endpoint calls (`create_from_body`, `update_from_body`): the domain
checks every rule; its problems come back beside the fields they name, in a 422 page that
keeps what was typed. Creating and editing need Action.EDIT; another team's object is a 404.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console import form_kit, form_specs
from watchpost.console.auth import permitted_form, read_db
from watchpost.console.form_kit import Chooser, FormPage, Saved, posted_body, save, show
from watchpost.console.forms import Field, Raw, body_of, initial, posted
from watchpost.console.signed_routes import Signed, console_router
from watchpost.heartbeats import lists as heartbeat_lists
from watchpost.heartbeats import service as heartbeats
from watchpost.heartbeats.endpoints import public_base
from watchpost.http.deps import request_sessions
from watchpost.monitors import lists as monitor_lists
from watchpost.monitors import service as monitors
from watchpost.monitors.types import DEFAULT_MONITOR_TYPE, MONITOR_TYPES
from watchpost.people.roles import Action
from watchpost.validation import object_id
from watchpost.writing import Writing

router = console_router()
MONITOR_SAVED: Final = Saved("monitor", lambda found: f"/monitors/{found}")
HEARTBEAT_SAVED: Final = Saved("heartbeat", lambda found: f"/heartbeats/{found}")


# ---------------------------------------------------------------------------- monitors


TYPE_WORDS: Final = {
    "status": "Status (HTTP)",
    "expected_status_code": "Expected status code (HTTP)",
    "keyword": "Keyword (HTTP)",
    "keyword_absence": "Keyword absence (HTTP)",
    **{name: name.upper() for name in ("tcp", "udp", "smtp", "pop", "imap", "dns")},
}
TYPE_CHOICES: Final = [
    (name, TYPE_WORDS.get(name, name.replace("_", " ").capitalize())) for name in MONITOR_TYPES
]


def _type(value: object, fallback: str = DEFAULT_MONITOR_TYPE) -> str:
    return value if isinstance(value, str) and value in MONITOR_TYPES else fallback


def _monitor_page(
    *,
    monitor_type: str,
    refs: Mapping[str, Sequence[tuple[str, str]]],
    values: Mapping[str, Raw] | None,
    defaults: Mapping[str, Any],
    monitor_id: int | None = None,
    secrets: dict[str, bool] | None = None,
) -> FormPage:
    fields = form_specs.monitor_fields(monitor_type, refs)
    where = "/monitors/new" if monitor_id is None else f"/monitors/{monitor_id}/edit"
    return FormPage(
        title="New monitor" if monitor_id is None else "Edit monitor",
        action=where,
        back="/" if monitor_id is None else f"/monitors/{monitor_id}",
        submit="Create monitor" if monitor_id is None else "Save monitor",
        fields=fields,
        values=values if values is not None else initial(fields, defaults),
        hidden={"monitor_type": monitor_type},
        secrets=secrets or {},
        chooser=Chooser(
            where,
            [
                {
                    "id": "monitor_type",
                    "name": "type",
                    "label": "Monitor type",
                    "choices": TYPE_CHOICES,
                    "value": monitor_type,
                }
            ],
            "Change type",
        ),
    )


def _monitor_secrets(monitor: Any) -> dict[str, bool]:
    return {"auth_password": monitor.auth_password_encrypted is not None}


@router.get("/monitors/new")
async def new_monitor(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    monitor_type = _type(request.query_params.get("type"))
    db = await request_sessions(request).read()
    refs = await form_kit.monitor_references(db, who.team_id)
    page = _monitor_page(
        monitor_type=monitor_type,
        refs=refs,
        values=None,
        defaults=form_specs.monitor_defaults(monitor_type),
    )
    return show(request, who, page)


def _monitor_fields(monitor_type: str) -> list[Field]:
    return form_specs.monitor_fields(_type(monitor_type), {})


@router.post("/monitors/new")
async def create_monitor(request: Request, who: Signed) -> Response:
    sent = await posted_body(request, who, _monitor_fields, creating=True, chosen="monitor_type")
    monitor_type = _type(sent.body["monitor_type"])
    raw, body = sent.raw, sent.body

    async def store(write: Writing) -> tuple[str, int, str]:
        monitor = await monitors.create_from_body(write, body)
        return "monitor.created", monitor.id, monitor.pronounceable_name or monitor.url

    async def again(db: AsyncSession) -> FormPage:
        refs = await form_kit.monitor_references(db, who.team_id, raw)
        return _monitor_page(monitor_type=monitor_type, refs=refs, values=raw, defaults={})

    return await save(request, who, MONITOR_SAVED, store=store, again=again)


@router.get("/monitors/{monitor_id}/edit")
async def edit_monitor(request: Request, who: Signed, monitor_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    found = object_id(monitor_id, monitor_lists.MONITOR)
    monitor = await monitors.get_monitor(db, team_id=who.team_id, monitor_id=found)
    attributes = monitor_lists.monitor_resource(monitor, who.team_name)["attributes"]
    monitor_type = _type(request.query_params.get("type"), monitor.monitor_type)
    if monitor_type != monitor.monitor_type:
        attributes = form_specs.switched(attributes, monitor.monitor_type, monitor_type)
    page = _monitor_page(
        monitor_type=monitor_type,
        refs=await form_kit.monitor_references(db, who.team_id, attributes),
        values=None,
        defaults=attributes,
        monitor_id=monitor.id,
        secrets=_monitor_secrets(monitor),
    )
    return show(request, who, page)


@router.post("/monitors/{monitor_id}/edit")
async def update_monitor(request: Request, who: Signed, monitor_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    found = object_id(monitor_id, monitor_lists.MONITOR)
    sent_type = str(form.get("monitor_type", ""))
    secrets: dict[str, bool] = {}
    raw: dict[str, Raw] = {}

    async def store(write: Writing) -> tuple[str, int, str]:
        monitor = await monitors.get_monitor(write.session, team_id=who.team_id, monitor_id=found)
        monitor_type = _type(sent_type, monitor.monitor_type)
        fields = form_specs.monitor_fields(monitor_type, {})
        raw.update(posted(fields, form))
        secrets.update(_monitor_secrets(monitor))
        current = monitor_lists.monitor_resource(monitor, who.team_name)["attributes"]
        body: dict[str, Any] = {"monitor_type": sent_type or monitor.monitor_type}
        if monitor_type != monitor.monitor_type:
            body.update(dict.fromkeys(form_specs.cleared_type_fields(monitor_type)))
        body.update(body_of(fields, raw, creating=False, current=current))
        await monitors.update_from_body(write, monitor, body)
        return "monitor.updated", monitor.id, monitor.pronounceable_name or monitor.url

    async def again(db: AsyncSession) -> FormPage:
        monitor = await monitors.get_monitor(db, team_id=who.team_id, monitor_id=found)
        return _monitor_page(
            monitor_type=_type(sent_type, monitor.monitor_type),
            refs=await form_kit.monitor_references(db, who.team_id, raw),
            values=raw,
            defaults={},
            monitor_id=found,
            secrets=secrets,
        )

    return await save(request, who, MONITOR_SAVED, store=store, again=again)


# -------------------------------------------------------------------------- heartbeats


def _heartbeat_page(
    refs: Mapping[str, Sequence[tuple[str, str]]],
    values: Mapping[str, Raw] | None,
    defaults: Mapping[str, Any],
    heartbeat_id: int | None = None,
) -> FormPage:
    fields = form_specs.heartbeat_fields(refs)
    return FormPage(
        title="New heartbeat" if heartbeat_id is None else "Edit heartbeat",
        action="/heartbeats/new" if heartbeat_id is None else f"/heartbeats/{heartbeat_id}/edit",
        back="/" if heartbeat_id is None else f"/heartbeats/{heartbeat_id}",
        submit="Create heartbeat" if heartbeat_id is None else "Save heartbeat",
        fields=fields,
        values=values if values is not None else initial(fields, defaults),
    )


@router.get("/heartbeats/new")
async def new_heartbeat(request: Request, who: Signed) -> Response:
    db = await read_db(request, who, Action.EDIT)
    refs = await form_kit.references(db, who.team_id)
    return show(request, who, _heartbeat_page(refs, None, form_specs.heartbeat_defaults()))


def _heartbeat_fields(_: str) -> list[Field]:
    return form_specs.heartbeat_fields({})


@router.post("/heartbeats/new")
async def create_heartbeat(request: Request, who: Signed) -> Response:
    sent = await posted_body(request, who, _heartbeat_fields, creating=True)
    raw, body = sent.raw, sent.body

    async def store(write: Writing) -> tuple[str, int, str]:
        heartbeat = await heartbeats.create_from_body(write, body)
        return "heartbeat.created", heartbeat.id, heartbeat.name

    async def again(db: AsyncSession) -> FormPage:
        return _heartbeat_page(await form_kit.references(db, who.team_id, raw), raw, {})

    return await save(request, who, HEARTBEAT_SAVED, store=store, again=again)


@router.get("/heartbeats/{heartbeat_id}/edit")
async def edit_heartbeat(request: Request, who: Signed, heartbeat_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    found = object_id(heartbeat_id, heartbeats.HEARTBEAT)
    heartbeat = await heartbeats.get_heartbeat(db, team_id=who.team_id, heartbeat_id=found)
    attributes = heartbeat_lists.heartbeat_resource(
        heartbeat, public_base=public_base(request, request.app.state.ctx), team_name=who.team_name
    )["attributes"]
    refs = await form_kit.references(db, who.team_id, attributes)
    return show(request, who, _heartbeat_page(refs, None, attributes, heartbeat.id))


@router.post("/heartbeats/{heartbeat_id}/edit")
async def update_heartbeat(request: Request, who: Signed, heartbeat_id: str) -> Response:
    sent = await posted_body(request, who, _heartbeat_fields, creating=False)
    found = object_id(heartbeat_id, heartbeats.HEARTBEAT)
    raw, body = sent.raw, sent.body

    async def store(write: Writing) -> tuple[str, int, str]:
        heartbeat = await heartbeats.get_heartbeat(
            write.session, team_id=who.team_id, heartbeat_id=found
        )
        await heartbeats.update_from_body(write, heartbeat, body)
        return "heartbeat.updated", heartbeat.id, heartbeat.name

    async def again(db: AsyncSession) -> FormPage:
        return _heartbeat_page(await form_kit.references(db, who.team_id, raw), raw, {}, found)

    return await save(request, who, HEARTBEAT_SAVED, store=store, again=again)
