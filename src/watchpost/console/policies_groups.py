"""/policies/groups and /policies/urgency-groups: the team's policy groups and urgency groups
(names that only gather and order policies or urgencies), each listed with the objects it
holds (linking to them), created, renamed (name and position) and deleted after a
confirmation.

One set of pages serves both kinds (`Kind`); the API's own plain-group services
(policies/endpoints.py and urgencies/endpoints.py's GROUPS) check and store, so deleting a
group takes its members out of it as the API does. Reading needs Action.READ, changing
Action.EDIT, with an audit entry; another team's group is a 404. Its router comes before the
policies' own, so that /policies/groups is not read as a policy's id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.account import audit
from watchpost.console.auth import Viewer, permitted_form
from watchpost.console.confirming import Asking, delete_confirmed
from watchpost.console.form_kit import stored_or_again
from watchpost.console.forms import field_errors
from watchpost.console.policies import PER_PAGE, principal
from watchpost.console.query_numbers import number
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page
from watchpost.errors import InvalidRequest
from watchpost.http.deps import request_sessions
from watchpost.listing import PageRequest
from watchpost.people.roles import Action
from watchpost.plain_groups import GROUP_NOT_NULL, GroupCreate, GroupUpdate, PlainGroups
from watchpost.policies import endpoints as policy_routes
from watchpost.policies.group_schemas import PolicyGroupCreate, PolicyGroupUpdate
from watchpost.policies.models import Policy
from watchpost.problems import accepted, checked
from watchpost.urgencies import endpoints as urgency_routes
from watchpost.urgencies.group_schemas import UrgencyGroupCreate, UrgencyGroupUpdate
from watchpost.urgencies.models import Urgency
from watchpost.validation import object_id

router = console_router()
FIELDS: Final = ("name", "sort_index")
MAX_MEMBERS: Final = 1000
"""At most this many members are listed on a group's page (20 a group on the list)."""
MEMBERS_LISTED: Final = 20


@dataclass(frozen=True)
class Kind:
    """One kind of group, as its pages name and reach it."""

    groups: PlainGroups[Any]
    create: type[GroupCreate]
    update: type[GroupUpdate]
    path: str
    noun: str
    plural: str
    members: type[Any]
    member_key: str
    member_words: str
    member_path: str
    """Where a member's page is (`{id}` for its id); `member_read_path` for readers."""
    member_read_path: str
    back: tuple[str, str]
    """The list of the members: (path, words)."""


POLICY_GROUPS: Final = Kind(
    policy_routes.GROUPS,
    PolicyGroupCreate,
    PolicyGroupUpdate,
    "/policies/groups",
    "policy group",
    "Policy groups",
    Policy,
    "policy_group_id",
    "escalation policies",
    "/policies/{id}",
    "/policies/{id}",
    ("/policies", "Escalation policies"),
)
URGENCY_GROUPS: Final = Kind(
    urgency_routes.GROUPS,
    UrgencyGroupCreate,
    UrgencyGroupUpdate,
    "/policies/urgency-groups",
    "urgency group",
    "Urgency groups",
    Urgency,
    "urgency_group_id",
    "urgencies",
    "/policies/urgencies/{id}/edit",
    "/policies/urgencies#urgency-{id}",
    ("/policies/urgencies", "Urgencies"),
)


async def _members(
    db: AsyncSession, kind: Kind, team_id: int, group_ids: list[int], limit: int
) -> dict[int, list[tuple[int, str]]]:
    """Each group's members (id, name) by name, at most `limit` a group."""
    found: dict[int, list[tuple[int, str]]] = {gid: [] for gid in group_ids}
    if not group_ids:
        return found
    model = kind.members
    key = getattr(model, kind.member_key)
    rows = await db.execute(
        select(key, model.id, model.name)
        .where(model.team_id == team_id, key.in_(group_ids))
        .order_by(model.name, model.id)
        .limit(limit * len(group_ids))
    )
    for group_id, row_id, name in rows:
        if len(found[group_id]) < limit:
            found[group_id].append((row_id, name))
    return found


def _body(values: dict[str, str], *, creating: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"name": " ".join(values["name"].split())}
    position = values["sort_index"].strip()
    if position:
        digits = position.lstrip("-")
        plain = digits.isascii() and digits.isdigit() and len(digits) <= 18
        body["sort_index"] = int(position) if plain else position  # else the API's 422
    elif not creating:
        body["sort_index"] = None
    return body


async def _posted(request: Request, who: Viewer) -> dict[str, str]:
    """The group form's values (its CSRF token and who's Action.EDIT checked)."""
    form = await permitted_form(request, who, Action.EDIT)
    return {name: str(form.get(name) or "") for name in FIELDS}


def _common(kind: Kind, who: Viewer) -> dict[str, Any]:
    return {
        "kind": kind,
        "may_edit": who.may(Action.EDIT),
        "member_path": kind.member_path if who.may(Action.EDIT) else kind.member_read_path,
    }


async def _list(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    kind: Kind,
    *,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
) -> Response:
    asked = number(request.query_params.get("page"), 1, 100_000)
    paging = PageRequest(page=asked, per_page=PER_PAGE, base_url=kind.path, other_params=())
    page = await kind.groups.page(db, principal(who), paging)
    shown = list(page.data)
    members = await _members(db, kind, who.team_id, [g.id for g in shown], MEMBERS_LISTED)
    return form_page(
        request,
        "plain_groups.html",
        who,
        errors=errors,
        section="policies",
        title=kind.plural,
        rows=[(g, members[g.id]) for g in shown],
        page_number=asked,
        has_next=page.links.get("next") is not None,
        values=values or {"name": "", "sort_index": ""},
        **_common(kind, who),
    )


async def _group(db: AsyncSession, who: Viewer, kind: Kind, group_id: str) -> Any:
    found = object_id(group_id, kind.groups.TYPE)
    return await kind.groups.get(db, team_id=who.team_id, object_id=found)


async def _page(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    kind: Kind,
    group: Any,
    *,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
) -> Response:
    members = (await _members(db, kind, who.team_id, [group.id], MAX_MEMBERS))[group.id]
    sort_index = "" if group.sort_index is None else str(group.sort_index)
    return form_page(
        request,
        "plain_group.html",
        who,
        errors=errors,
        section="policies",
        title=f"{kind.noun.capitalize()} {group.name}",
        group=group,
        members=members,
        values=values or {"name": group.name, "sort_index": sort_index},
        **_common(kind, who),
    )


async def _audit(
    request: Request, who: Viewer, db: AsyncSession, kind: Kind, change: str, group: Any
) -> None:
    """An audit entry `policy_group.created` (…`updated`, `deleted`; `urgency_group.…`)."""
    subject = (kind.groups.TYPE, group.id, group.name)
    await audit(db, request, who, f"{kind.groups.TYPE}.{change}", None, subject)


def _add_routes(kind: Kind) -> None:
    """The five routes of one kind of group."""

    @router.get(kind.path)
    async def group_list(request: Request, who: Signed) -> Response:
        who.require(Action.READ)
        return await _list(request, who, await request_sessions(request).read(), kind)

    @router.post(kind.path + "/new")
    async def create_group(request: Request, who: Signed) -> Response:
        values = await _posted(request, who)

        async def store(db: AsyncSession) -> str:
            data = accepted(*checked(kind.create, _body(values, creating=True)))
            made = await kind.groups.make(db, principal(who), request.app.state.ctx, data)
            await _audit(request, who, db, kind, "created", made)
            return f"{kind.path}/{made.id}"

        async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
            errors = field_errors(exc.problems, FIELDS)
            return await _list(request, who, db, kind, values=values, errors=errors)

        return await stored_or_again(request, store, again)

    @router.get(kind.path + "/{group_id}")
    async def group_page(request: Request, who: Signed, group_id: str) -> Response:
        who.require(Action.READ)
        db = await request_sessions(request).read()
        return await _page(request, who, db, kind, await _group(db, who, kind, group_id))

    @router.post(kind.path + "/{group_id}/edit")
    async def update_group(request: Request, who: Signed, group_id: str) -> Response:
        values = await _posted(request, who)

        async def store(db: AsyncSession) -> str:
            group = await _group(db, who, kind, group_id)
            body = _body(values, creating=False)
            data = accepted(*checked(kind.update, body, not_null=GROUP_NOT_NULL))
            await kind.groups.change(db, principal(who), group, request.app.state.ctx, data)
            await _audit(request, who, db, kind, "updated", group)
            return f"{kind.path}/{group.id}?done=saved"

        async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
            errors = field_errors(exc.problems, FIELDS)
            group = await _group(db, who, kind, group_id)
            return await _page(request, who, db, kind, group, values=values, errors=errors)

        return await stored_or_again(request, store, again)

    @router.post(kind.path + "/{group_id}/delete")
    async def delete_group(request: Request, who: Signed, group_id: str) -> Response:
        async def remove(db: AsyncSession, group: Any) -> None:
            await _audit(request, who, db, kind, "deleted", group)
            await kind.groups.remove(db, group)

        return await delete_confirmed(
            request,
            who,
            "policies",
            find=lambda db: _group(db, who, kind, group_id),
            ask=lambda group: Asking(
                question=f"Delete a {kind.noun}",
                detail=(
                    f"Delete the {kind.noun} {group.name}? Its {kind.member_words} stay, "
                    "in no group."
                ),
                action=f"{kind.path}/{group.id}/delete",
                button=f"Delete the {kind.noun}",
                back=f"{kind.path}/{group.id}",
            ),
            remove=remove,
            done=f"{kind.path}?done=deleted",
        )


_add_routes(POLICY_GROUPS)
_add_routes(URGENCY_GROUPS)
