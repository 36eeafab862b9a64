"""The routes of a kind of group, from one factory: its collection, each group, its members.

A group's members are listed by their own domain's lists (`MemberPage`), which render and
page them; the route here first makes sure the group is the caller's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.groups import lists, service
from watchpost.groups.group_kinds import (
    HEARTBEAT_GROUPS,
    MONITOR_GROUPS,
    SOURCE_GROUPS,
    Group,
    GroupKind,
)
from watchpost.groups.schemas import schemas_of
from watchpost.heartbeats import endpoints as heartbeats
from watchpost.heartbeats import lists as heartbeat_lists
from watchpost.heartbeats.schemas import HeartbeatAttributes
from watchpost.http.body import JsonObject
from watchpost.http.crud import CHILD_LIST_ERRORS, Finder, Routes, Writer
from watchpost.http.deps import Caller, Context, ReadDb
from watchpost.http.envelope import listing, single
from watchpost.http.openapi import ListDoc
from watchpost.http.pagination import Paging
from watchpost.listing import PageRequest, ResourcePage
from watchpost.monitors import lists as monitor_lists
from watchpost.monitors.schemas import MonitorAttributes
from watchpost.sources import lists as source_lists
from watchpost.sources import service as source_service
from watchpost.sources.schemas import SourceAttributes
from watchpost.teams.service import Principal


@dataclass(frozen=True)
class Members:
    """A request for a page of a group's members (the group is the caller's: checked)."""

    group_id: int
    request: Request
    caller: Principal
    ctx: AppContext
    db: AsyncSession
    paging: PageRequest

    @property
    def scope(self) -> dict[str, Any]:
        """What every member list takes: the team, the page and the group."""
        team = {"team_id": self.caller.team_id, "team_name": self.caller.team_name}
        return {**team, "paging": self.paging, "group_id": self.group_id}


MemberPage = Callable[[Members], Awaitable[ResourcePage]]
"""A page of a group's members, rendered and paged by their own domain's lists."""


async def _monitors(m: Members) -> ResourcePage:
    return await monitor_lists.list_monitors(m.db, **m.scope)


async def _heartbeats(m: Members) -> ResourcePage:
    base = heartbeats.public_base(m.request, m.ctx)
    return await heartbeat_lists.list_heartbeats(m.db, public_base=base, **m.scope)


async def _sources(m: Members) -> ResourcePage:
    to = source_service.ingesting(m.ctx.settings, m.request.url.scheme, m.request.url.netloc)
    return await source_lists.list_sources(m.db, to=to, box=m.ctx.box, **m.scope)


def group_router(
    kind: GroupKind, member_attributes: type[BaseModel], member_page: MemberPage
) -> APIRouter:
    router = APIRouter(prefix=kind.prefix, tags=[f"{kind.name}s"])
    shapes = schemas_of(kind)
    routes = Routes(router, shapes.attributes)
    members = {"model": ListDoc[member_attributes]}  # type: ignore[valid-type]
    ungrouped = f"Its {kind.members} are kept, ungrouped (`{kind.member_key.key}` becomes null)."
    find = Finder(partial(service.get_group, kind), kind.api_type, "group_id")

    def view(group: Group, caller: Principal) -> dict[str, object]:
        return lists.group_resource(kind, group, team_name=caller.team_name)

    @routes.create("", summary=f"Create a {kind.name}", body=shapes.create)
    async def create_group(body: JsonObject, caller: Caller, write: Writer) -> Response:
        async with write.session.begin():
            group = await service.create_from_body(kind, write, body)
        return single(view(group, caller), status=201)

    @routes.list("", summary=f"List {kind.name}s")
    async def list_groups(caller: Caller, db: ReadDb, paging: Paging) -> Response:
        page = await lists.list_groups(
            kind, db, team_id=caller.team_id, team_name=caller.team_name, paging=paging
        )
        return listing(page.data, page.links)

    @routes.get("/{group_id}", summary=f"Get a {kind.name}")
    async def get_group(group_id: str, caller: Caller, db: ReadDb) -> Response:
        return single(view(await find(db, caller, group_id), caller))

    @router.get(
        f"/{{group_id}}/{kind.members}",
        name=f"list_group_{kind.members}",
        summary=f"List a {kind.name}'s {kind.members}",
        responses={200: members, **CHILD_LIST_ERRORS},
    )
    async def list_members(
        group_id: str, request: Request, caller: Caller, ctx: Context, db: ReadDb, paging: Paging
    ) -> Response:
        group = await find(db, caller, group_id)
        page = await member_page(Members(group.id, request, caller, ctx, db, paging))
        return listing(page.data, page.links)

    @routes.update(
        "/{group_id}",
        summary=f"Update a {kind.name}",
        description=_update_rules(kind),
        body=shapes.update,
        not_null=shapes.not_null,
    )
    async def update_group(
        group_id: str, body: JsonObject, caller: Caller, write: Writer
    ) -> Response:
        group = await find.update(write, group_id, body, partial(service.update_from_body, kind))
        return single(view(group, caller))

    @routes.delete("/{group_id}", summary=f"Delete a {kind.name}", description=ungrouped)
    async def delete_group(group_id: str, write: Writer) -> Response:
        return await find.delete(write, group_id, partial(service.delete_group, kind))

    return router


def _update_rules(kind: GroupKind) -> str:
    rules = ["Only the sent fields change; null is a value of none of them."]
    if kind.pause_member is not None:
        rules.append(f"Changing `paused` pauses or resumes every {kind.member_type} in the group.")
    if kind.unique_names:
        rules.append("Names are unique within the team.")
    return " ".join(rules)


# What routes.py serves: one router per kind of group, its members listed by their domain.
routers = (
    group_router(MONITOR_GROUPS, MonitorAttributes, _monitors),
    group_router(HEARTBEAT_GROUPS, HeartbeatAttributes, _heartbeats),
    group_router(SOURCE_GROUPS, SourceAttributes, _sources),
)
