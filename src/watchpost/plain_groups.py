"""Groups that only name and order the objects that name them (urgency groups, policy groups).

Each kind is a plain collection (http/collection.py): its domain has a schemas module made of
the models here (renamed for the OpenAPI document) and a service module whose functions are a
`PlainGroups`'. An object names its group by a nullable column (`urgency_group_id`,
`policy_group_id`, no foreign key), checked with `reference_problems`; deleting a group clears
that column on the objects that named it.

No object is left naming a deleted group, whatever runs at the same time: the check locks the
group's row (`FOR KEY SHARE`, until the naming transaction ends: a DELETE of the group waits
for it), and the delete clears the column after its DELETE, which on PostgreSQL sees what
such a transaction committed meanwhile. Both lock the group's row before the members' rows:
no deadlock. (SQLite runs one writer at a time.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import Field
from sqlalchemy import Integer, String, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from watchpost.context import AppContext
from watchpost.db.queries import not_a_group, team_object
from watchpost.errors import InvalidRequest, Problem
from watchpost.listing import Page, PageRequest, Resource, resource, team_page
from watchpost.plain_objects import added, stamps
from watchpost.problems import team_name_problems
from watchpost.teams.service import Principal
from watchpost.validation import ClosedModel, Int32, Name, OwnTeamName


class PlainGroupColumns:
    """A group's own columns (with IdMixin, TeamOwnedMixin, TimestampMixin)."""

    name: Mapped[str] = mapped_column(String(255))
    sort_index: Mapped[int | None] = mapped_column(Integer, default=None)


class GroupCreate(ClosedModel):
    name: Name
    sort_index: Int32 | None = Field(default=None, description="Position; null when not sent.")
    team_name: OwnTeamName = None


class GroupUpdate(ClosedModel):
    name: Name | None = None
    sort_index: Int32 | None = None
    team_name: OwnTeamName = None


GROUP_NOT_NULL = ("name",)


class GroupAttributes(ClosedModel):
    name: str
    sort_index: int | None
    team_name: str
    created_at: str
    updated_at: str


G = TypeVar("G", bound=PlainGroupColumns)


async def reference_problems(
    db: AsyncSession, model: type[Any], field: str, *, team_id: int, ref: int | None
) -> list[Problem]:
    """not_a_group() unless ref is None or names one of the team's rows of model, which then
    stays until this transaction ends (its row is locked against deletion)."""
    if ref is None:
        return []
    columns = model.__table__.c
    found = await db.scalar(
        select(columns.id)
        .where(columns.team_id == team_id, columns.id == ref)
        .with_for_update(key_share=True)
    )
    return not_a_group(field, ref) if found is None else []


def own_team(sent: str | None, caller: Principal) -> None:
    """A team_name sent must be the token's (as the hosted API's global tokens need it)."""
    problems = team_name_problems(sent, caller.team_name)
    if problems:
        raise InvalidRequest(problems)


@dataclass(frozen=True)
class PlainGroups(Generic[G]):
    """The service of one kind of plain group: the functions the collection calls."""

    TYPE: str
    model: type[G]
    members: type[Any]
    """The model of the objects a group holds."""
    member_key: str
    """Their column naming the group."""

    def render(self, group: G, team_name: str) -> Resource:
        row: Any = group
        attributes = {"name": row.name, "sort_index": row.sort_index, **stamps(row, team_name)}
        return resource(self.TYPE, row.id, attributes)

    async def make(
        self, db: AsyncSession, caller: Principal, ctx: AppContext, data: GroupCreate
    ) -> G:
        own_team(data.team_name, caller)
        group: Any = self.model()
        group.team_id, group.name, group.sort_index = caller.team_id, data.name, data.sort_index
        made: G = await added(db, group, ctx.clock.now())
        return made

    async def page(self, db: AsyncSession, caller: Principal, paging: PageRequest) -> Page[G]:
        return await team_page(db, self.model, paging, team_id=caller.team_id)

    async def get(self, db: AsyncSession, *, team_id: int, object_id: int) -> G:
        return await team_object(db, self.model, self.TYPE, team_id=team_id, object_id=object_id)

    async def change(
        self, db: AsyncSession, caller: Principal, group: G, ctx: AppContext, data: GroupUpdate
    ) -> G:
        """The sent fields change (`sort_index: null` clears it)."""
        own_team(data.team_name, caller)
        sent = data.model_fields_set
        for name in ("name", "sort_index"):
            if name in sent:
                setattr(group, name, getattr(data, name))
        row: Any = group
        row.updated_at = ctx.clock.now()
        await db.flush()
        return group

    async def remove(self, db: AsyncSession, group: G) -> None:
        """Delete the group; the objects it held name none."""
        row: Any = group
        table = self.members.__table__
        clear = (
            update(table)
            .where(table.c.team_id == row.team_id, table.c[self.member_key] == row.id)
            .values({self.member_key: None})
        )
        await db.delete(group)
        await db.flush()
        await db.execute(clear)  # after the DELETE: it sees what was committed while it waited
