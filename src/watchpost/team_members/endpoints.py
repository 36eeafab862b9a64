"""Routes of /api/v2/team-members: read only (people are added with `watchpost user create`).

The hosted API's invite (POST) and removal (DELETE) are not offered: those methods get the
usual 405.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import RootModel

from watchpost.errors import InvalidRequest
from watchpost.http.collection import ObjectId
from watchpost.http.crud import CHILD_LIST_ERRORS, Finder, Routes
from watchpost.http.deps import Caller, ReadDb
from watchpost.http.envelope import listing, single
from watchpost.http.openapi import ListDoc, SingleDoc
from watchpost.http.pagination import Paging
from watchpost.problems import team_name_problems
from watchpost.team_members import service
from watchpost.team_members.schemas import ABOUT, TeamMemberAttributes
from watchpost.validation import FilterText

router = APIRouter(prefix="/api/v2/team-members", tags=["team members"])


class MembersDoc(RootModel[ListDoc[TeamMemberAttributes] | SingleDoc[TeamMemberAttributes]]):
    """A page of members, or the one member an `email` names."""


routes = Routes(router, TeamMemberAttributes, many=MembersDoc)
find = Finder(service.get, service.TYPE, "object_id")


@routes.list(
    "",
    summary="List team members (or find one by e-mail)",
    description=ABOUT,
    errors=CHILD_LIST_ERRORS,
)
async def list_members(
    caller: Caller,
    db: ReadDb,
    paging: Paging,
    email: Annotated[
        FilterText | None,
        Query(max_length=320, description="The one member with this address (not a list)."),
    ] = None,
    team_name: Annotated[
        FilterText | None, Query(max_length=255, description="Must name the token's team.")
    ] = None,
) -> Response:
    problems = team_name_problems(team_name, caller.team_name)
    if problems:
        raise InvalidRequest(problems)
    if email:
        member = await service.by_email(db, team_id=caller.team_id, email=email)
        return single(service.render(member, caller.team_name))
    page = await service.page(db, caller.team_id, paging)
    return listing((service.render(user, caller.team_name) for user in page.data), page.links)


@routes.get("/{id}", summary="Get a team member")
async def get_member(object_id: ObjectId, caller: Caller, db: ReadDb) -> Response:
    return single(service.render(await find(db, caller, object_id), caller.team_name))


routers = (router,)
