"""/channels: the team's notification channels (Apprise URLs): listed a page at a time,
created and edited through a form per kind (Slack, Teams, Discord, Telegram, ntfy, Pushover,
e-mail, any Apprise URL: channels_kinds.py builds the URL), deleted after a confirmation, and
tested with a real send.

The stored URL holds the service's credentials and is never sent to a browser again: the
edit form shows the fields that are not secret (a topic, a chat, an SMTP server) read back
from it, and asks for the secret ones afresh; a secret field left empty keeps the stored
value, as long as the kind stays the same. Reading needs Action.READ, a test send
Action.OPERATE, every change Action.EDIT; another team's channel is a 404. Changes go
through channels/service.py (the API's) with the API's validation (channels/schemas.py),
plus an audit entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels import service
from watchpost.channels.models import NotificationChannel
from watchpost.channels.schemas import ChannelCreate, ChannelUpdate
from watchpost.console.account import audit
from watchpost.console.auth import Viewer, permitted_form, read_db, write_db
from watchpost.console.channels_kinds import (
    DEFAULT_KIND,
    KINDS,
    Kind,
    kind_named,
    kind_of_service,
    label_of_service,
    stored_values,
)
from watchpost.console.channels_urls import KindProblem
from watchpost.console.confirming import Asking, delete_confirmed
from watchpost.console.notices import object_notices
from watchpost.console.query_numbers import number
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.team_audit import DEFAULT_SIZE, PAGE_SIZES
from watchpost.console.web import form_page, render
from watchpost.delivery import service as delivery
from watchpost.http.deps import request_sessions
from watchpost.listing import PageRequest
from watchpost.people.roles import Action
from watchpost.problems import validated
from watchpost.teams.service import Principal
from watchpost.validation import object_id

router = console_router()
SECTION: Final = "channels"
CLEAR: Final = "__clear"
NOTICES: Final = object_notices("Channel")
MIN_SECRET: Final = 4
"""A secret at least this long is masked wherever an error text repeats it."""


def _principal(who: Viewer) -> Principal:
    return Principal(team_id=who.team_id, team_name=who.team_name, token_id=0)


async def _channel(db: AsyncSession, who: Viewer, channel_id: str) -> NotificationChannel:
    """The team's channel, or the 404 page (another team's, or none)."""
    found = object_id(channel_id, service.TYPE)
    return await service.get(db, team_id=who.team_id, object_id=found)


# ------------------------------------------------------------------------------ the list


async def _list(
    request: Request, who: Viewer, db: AsyncSession, *, status: int = 200, **extra: Any
) -> Response:
    query = request.query_params
    size = number(query.get("per_page"), DEFAULT_SIZE, PAGE_SIZES[-1])
    paging = PageRequest(
        page=number(query.get("page"), 1, 10**9),
        per_page=size,
        base_url=request.url.path,
        other_params=(),
    )
    page = await service.page(db, _principal(who), paging)
    extra.setdefault("notice", NOTICES.get(query.get("done", "")))
    return render(
        request,
        "channels.html",
        status=status,
        viewer=who,
        section=SECTION,
        title="Notification channels",
        channels=[(row, label_of_service(row.service)) for row in page.data],
        links=page.links,
        page_number=paging.page,
        per_page=size,
        sizes=sorted({*PAGE_SIZES, size}),
        **extra,
    )


@router.get("/channels")
async def channels_page(request: Request, who: Signed) -> Response:
    who.require(Action.READ)
    return await _list(request, who, await request_sessions(request).read())


# ------------------------------------------------------------------------------ the form


def _form(
    request: Request,
    who: Viewer,
    kind: Kind,
    *,
    channel: NotificationChannel | None,
    values: Mapping[str, str],
    stored: Mapping[str, str],
    errors: dict[str, str] | None = None,
    retype: bool = False,
) -> Response:
    where = "/channels/new" if channel is None else f"/channels/{channel.id}/edit"
    return form_page(
        request,
        "channel_form.html",
        who,
        errors=errors,
        section=SECTION,
        title="New notification channel" if channel is None else f"Edit {channel.name}",
        channel=channel,
        action=where,
        kind=kind,
        kinds=[(k.key, k.label) for k in KINDS],
        values=values,
        stored={name: bool(stored.get(name)) for name in kind.secrets},
        retype=retype,
    )


def _shown(kind: Kind, values: Mapping[str, str]) -> dict[str, str]:
    """What the form may show of values: never a secret."""
    return {name: value for name, value in values.items() if name not in kind.secrets}


def _posted(kind: Kind, form: Any) -> dict[str, str]:
    values = {"name": " ".join(str(form.get("name", "")).split())}
    for field in kind.fields:
        values[field.name] = str(form.get(field.name) or "").strip()
    return values


def _with_secrets(
    kind: Kind, posted: Mapping[str, str], stored: Mapping[str, str], form: Any
) -> dict[str, str]:
    """The posted values, an empty secret taking the stored one (unless its box to remove
    it is ticked)."""
    merged = dict(posted)
    for name in kind.secrets:
        if not merged.get(name) and form.get(name + CLEAR) is None:
            merged[name] = stored.get(name, "")
    return merged


def _problems(
    kind: Kind, values: Mapping[str, str], model: type[BaseModel], *, creating: bool
) -> tuple[BaseModel | None, dict[str, str]]:
    """The API's body for values (validated by the API's model), or the errors by field."""
    errors: dict[str, str] = {}
    for field in kind.fields:
        if field.required and not values.get(field.name):
            errors[field.name] = (
                f"Give the {field.label.lower()}" if field.input != "select" else "Choose one"
            )
    if errors:
        return None, errors
    try:
        url = kind.build(values)
    except KindProblem as problem:
        return None, {problem.field: problem.message}
    name = values.get("name") or (kind.label if creating else None)
    parsed, problems = validated(model, {"name": name, "url": url})
    for named, message in problems:
        target = "name" if named == "name" else kind.host_field
        text = message.removeprefix(f"{named} ").strip()
        errors.setdefault(target, text[:1].upper() + text[1:])
    return parsed, errors


async def _audit(
    request: Request, who: Viewer, db: AsyncSession, action: str, channel: NotificationChannel
) -> None:
    subject = (service.TYPE, channel.id, channel.name)
    details = {"service": channel.service}
    await audit(db, request, who, f"notification_channel.{action}", None, subject, details)


@router.get("/channels/new")
async def new_channel(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    kind = kind_named(request.query_params.get("kind"))
    return _form(request, who, kind, channel=None, values=dict(kind.defaults), stored={})


@router.post("/channels/new")
async def create_channel(request: Request, who: Signed) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    kind = kind_named(str(form.get("kind", "")), DEFAULT_KIND)
    values = _posted(kind, form)
    parsed, errors = _problems(kind, values, ChannelCreate, creating=True)
    if errors or not isinstance(parsed, ChannelCreate):
        retype = any(values.get(name) for name in kind.secrets)
        shown = _shown(kind, values)
        return _form(
            request, who, kind, channel=None, values=shown, stored={}, errors=errors, retype=retype
        )
    ctx = request.app.state.ctx
    db = await write_db(request)
    async with db.begin():
        channel = await service.make(db, _principal(who), ctx, parsed)
        await _audit(request, who, db, "created", channel)
    return RedirectResponse("/channels?done=created", status_code=303)


def _stored(ctx: Any, channel: NotificationChannel, kind: Kind) -> dict[str, str]:
    """The fields of kind as the channel's stored URL holds them (only when the channel is
    of that kind: another kind keeps nothing)."""
    if kind_of_service(channel.service) is not kind:
        return {}
    return stored_values(kind, ctx.box.decrypt(channel.url_encrypted))


@router.get("/channels/{channel_id}/edit")
async def edit_channel(request: Request, who: Signed, channel_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    channel = await _channel(db, who, channel_id)
    own = kind_of_service(channel.service)
    kind = kind_named(request.query_params.get("kind"), own.key)
    stored = _stored(request.app.state.ctx, channel, kind)
    values = {**dict(kind.defaults), **_shown(kind, stored), "name": channel.name}
    return _form(request, who, kind, channel=channel, values=values, stored=stored)


@router.post("/channels/{channel_id}/edit")
async def update_channel(request: Request, who: Signed, channel_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    ctx = request.app.state.ctx
    db = await write_db(request)
    async with db.begin():
        channel = await _channel(db, who, channel_id)
        kind = kind_named(str(form.get("kind", "")), kind_of_service(channel.service).key)
        stored = _stored(ctx, channel, kind)
        values = _posted(kind, form)
        merged = _with_secrets(kind, values, stored, form)
        parsed, errors = _problems(kind, merged, ChannelUpdate, creating=False)
        if not values["name"]:
            errors.setdefault("name", "Give the channel a name")
        if errors or not isinstance(parsed, ChannelUpdate):
            retype = any(values.get(name) for name in kind.secrets)
            return _form(
                request,
                who,
                kind,
                channel=channel,
                values=_shown(kind, values),
                stored=stored,
                errors=errors,
                retype=retype,
            )
        await service.change(db, _principal(who), channel, ctx, parsed)
        await _audit(request, who, db, "updated", channel)
    return RedirectResponse("/channels?done=saved", status_code=303)


# ----------------------------------------------------------------------- delete and test


@router.post("/channels/{channel_id}/delete")
async def delete_channel(request: Request, who: Signed, channel_id: str) -> Response:
    async def remove(db: AsyncSession, channel: NotificationChannel) -> None:
        await _audit(request, who, db, "deleted", channel)
        await service.remove(db, channel)

    return await delete_confirmed(
        request,
        who,
        SECTION,
        find=lambda db: _channel(db, who, channel_id),
        ask=lambda channel: Asking(
            title="Delete a channel",
            question=f"Delete the channel {channel.name}?",
            detail="It is told of no incident from now on, and escalation steps that "
            "name it skip it.",
            action=f"/channels/{channel.id}/delete",
            button="Delete the channel",
            back="/channels",
        ),
        remove=remove,
        done="/channels?done=deleted",
    )


def masked(text: str, secrets: list[str]) -> str:
    """text with every secret (of MIN_SECRET characters or more) replaced by ***."""
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= MIN_SECRET:
            text = text.replace(secret, "***")
    return text


def _secrets_of(ctx: Any, channel: NotificationChannel) -> list[str]:
    """The URL and the secret parts of it: what an error text must not repeat."""
    url = ctx.box.decrypt(channel.url_encrypted)
    kind = kind_of_service(channel.service)
    values = stored_values(kind, url)
    return [url, *(values.get(name, "") for name in kind.secrets)]


@router.post("/channels/{channel_id}/test")
async def test_channel(request: Request, who: Signed, channel_id: str) -> Response:
    await permitted_form(request, who, Action.OPERATE)
    ctx = request.app.state.ctx
    db = await request_sessions(request).read()
    channel = await _channel(db, who, channel_id)
    await db.commit()  # its connection back in the pool while the test is sent
    now = ctx.clock.now()
    outcome = await delivery.test_channel(
        channel=channel, team_name=who.team_name, box=ctx.box, now=now
    )
    error = masked(outcome.error or "", _secrets_of(ctx, channel)) if not outcome.ok else ""
    tested = {"name": channel.name, "ok": outcome.ok, "error": error, "ms": outcome.duration_ms}
    # The page is read before the audit entry is written: opening the write session closes
    # the read one, which must not be used again (RequestSessions).
    page = await _list(request, who, db, tested=tested)
    writer = await write_db(request)
    async with writer.begin():
        await _audit(request, who, writer, "tested", channel)
    return page
