"""What every create and edit form of the console shares: the page (edit_form.html), the
team's groups and policies offered in selects, and `save`, which stores a body through the
domain with an audit entry, or shows the form again with the domain's problems
(`stored_or_again`: that transaction and its retry, for the forms with their own pages)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData

from watchpost.console import pickers
from watchpost.console.account import audit
from watchpost.console.auth import Viewer, permitted_form, write_db
from watchpost.console.forms import Field, Raw, body_of, field_errors, posted
from watchpost.console.web import form_page
from watchpost.errors import InvalidRequest
from watchpost.heartbeats.models import HeartbeatGroup
from watchpost.monitors import placement
from watchpost.monitors.models import MonitorGroup
from watchpost.people.roles import Action
from watchpost.policies.models import Policy
from watchpost.writing import Writing

MAX_CHOICES: Final = 1000
"""At most this many of the team's groups or policies are offered in a select."""


@dataclass
class Chooser:
    """A GET form at the top choosing what the form below is for (a monitor's type …)."""

    action: str
    selects: list[dict[str, Any]]
    button: str


@dataclass
class FormPage:
    """What edit_form.html shows."""

    title: str
    action: str
    back: str
    submit: str
    fields: list[Field]
    values: Mapping[str, Raw]
    hidden: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, bool] = field(default_factory=dict)
    chooser: Chooser | None = None
    empty: str | None = None
    section: str | None = None
    """The navigation's entry the form belongs to; None: the monitors' or heartbeats' by
    its action, else the overview's."""


def show(
    request: Request, who: Viewer, page: FormPage, *, errors: dict[str, str] | None = None
) -> Response:
    sections: dict[str, list[Field]] = {}
    for item in page.fields:
        sections.setdefault(item.section or "Details", []).append(item)
    return form_page(
        request,
        "edit_form.html",
        who,
        errors=errors,
        section=page.section
        or next(
            (key for key in ("monitors", "heartbeats") if page.action.startswith(f"/{key}")),
            "overview",
        ),
        title=page.title,
        action=page.action,
        back=page.back,
        submit=page.submit,
        sections=list(sections.items()),
        values=page.values,
        hidden=page.hidden,
        secrets=page.secrets,
        chooser=page.chooser,
        empty=page.empty,
    )


async def choices(
    db: AsyncSession, model: Any, team_id: int, chosen: Iterable[object] = ()
) -> list[tuple[str, str]]:
    """The team's rows of model (groups, policies) as (id, name) for a select: the first
    MAX_CHOICES by name, and the chosen ones (a form's current values) whatever their place,
    so that saving never clears a choice the list did not reach."""
    picked = await pickers.pick(
        db,
        pickers.of_team(model, team_id, model.name),
        model.id,
        model.name,
        chosen=pickers.ids_of(chosen),
        limit=MAX_CHOICES,
    )
    return [(str(row_id), name) for row_id, name in picked.items]


async def references(
    db: AsyncSession, team_id: int, values: Mapping[str, Any] | None = None
) -> dict[str, Sequence[tuple[str, str]]]:
    """The selects of the monitor and heartbeat forms, offering `values`' own choices."""
    now = values or {}
    policies = await choices(
        db, Policy, team_id, (now.get("policy_id"), now.get("expiration_policy_id"))
    )
    return {
        "monitor_group_id": await choices(
            db, MonitorGroup, team_id, (now.get("monitor_group_id"),)
        ),
        "heartbeat_group_id": await choices(
            db, HeartbeatGroup, team_id, (now.get("heartbeat_group_id"),)
        ),
        "policy_id": policies,
        "expiration_policy_id": policies,
    }


async def monitor_references(
    db: AsyncSession, team_id: int, values: Mapping[str, Any] | None = None
) -> dict[str, Sequence[tuple[str, str]]]:
    """references, and the locations a monitor of the team may name (placement.usable: the
    shared ones and the team's own) with those `values` name already."""
    usable = placement.usable(await placement.places(db), team_id)
    words = {
        p.name: f"{p.name} ({p.region}, "
        + ("this server" if p.is_server else "your team's" if p.team_id else "shared")
        + ")"
        for p in usable
    }
    named = (values or {}).get("locations")
    for name in named if isinstance(named, list) else []:
        words.setdefault(str(name), str(name))
    return {**await references(db, team_id, values), "locations": list(words.items())}


@dataclass(frozen=True)
class Posted:
    """A create or edit form as posted: the form, its values of the fields and the JSON
    body the API would receive."""

    form: FormData
    raw: dict[str, Raw]
    body: dict[str, Any]


async def posted_body(
    request: Request,
    who: Viewer,
    fields: Callable[[str], Sequence[Field]],
    *,
    creating: bool,
    chosen: str = "",
) -> Posted:
    """The form (its CSRF token and who's Action.EDIT checked) with the fields the value of
    its field `chosen` picks (a monitor's type …; none: ""), that value first in the body."""
    form = await permitted_form(request, who, Action.EDIT)
    sent = str(form.get(chosen, "")) if chosen else ""
    shown = fields(sent)
    raw = posted(shown, form)
    body = body_of(shown, raw, creating=creating)
    return Posted(form, raw, {chosen: sent, **body} if chosen else body)


Save = Callable[[Writing], Awaitable[tuple[str, int, str]]]
"""Stores the body in the request's Writing: (audit action, object id, object's name)."""


@dataclass(frozen=True)
class Saved:
    """What a form's object is: its audit entries' subject type, and the page shown once it
    is saved (from its id)."""

    subject_type: str
    redirect: Callable[[int], str]


async def stored_or_again(
    request: Request,
    store: Callable[[AsyncSession], Awaitable[str]],
    again: Callable[[AsyncSession, InvalidRequest], Awaitable[Response]],
) -> Response:
    """Runs store (the domain's checks, the write and its audit entry) in one transaction of
    the write session: a 303 to the page it returns; when the domain refuses, nothing is
    written and `again` (the form shown again with the problems) runs in a fresh one."""
    db = await write_db(request)
    try:
        async with db.begin():
            where = await store(db)
    except InvalidRequest as exc:
        async with db.begin():
            return await again(db, exc)
    return RedirectResponse(where, status_code=303)


async def save(
    request: Request,
    who: Viewer,
    saved: Saved,
    *,
    store: Save,
    again: Callable[[AsyncSession], Awaitable[FormPage]],
) -> Response:
    """Runs store (with who's Writing) and its audit entry (of the same time) in one
    transaction: a 303 to the object, or the form again (422) with the domain's problems
    beside their fields."""

    async def audited(db: AsyncSession) -> str:
        write = Writing.of(db, who, request.app.state.ctx)
        action, object_id_, name = await store(write)
        await audit(db, request, who, action, write.now, (saved.subject_type, object_id_, name))
        return saved.redirect(object_id_)

    async def shown_again(db: AsyncSession, exc: InvalidRequest) -> Response:
        page = await again(db)
        errors = field_errors(exc.problems, [f.name for f in page.fields])
        return show(request, who, page, errors=errors)

    return await stored_or_again(request, audited, shown_again)
