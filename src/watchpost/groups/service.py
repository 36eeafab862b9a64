"""What groups do, for every kind: create, read, change, delete. No HTTP in here.

A group holds members through their `member_key` column. Pausing a group pauses the members
it holds at that moment (each as its domain pauses it); deleting it keeps them, ungrouped.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Select, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.deletions import delete_named
from watchpost.db.queries import one_or_404
from watchpost.errors import InvalidRequest
from watchpost.groups.group_kinds import Group, GroupKind
from watchpost.groups.schemas import schemas_of
from watchpost.writing import Writing


def groups_of(kind: GroupKind, team_id: int) -> Select[tuple[Group]]:
    stmt = select(kind.model).where(kind.model.team_id == team_id)
    return cast("Select[tuple[Group]]", stmt)  # select() types a union of models as Base


async def get_group(
    kind: GroupKind, session: AsyncSession, *, team_id: int, group_id: int
) -> Group:
    stmt = groups_of(kind, team_id).where(kind.model.id == group_id)
    return await one_or_404(session, stmt, kind.api_type, group_id)


def members_of(kind: GroupKind, group: Group) -> Select[tuple[Any]]:
    member = kind.member_model
    return select(member).where(member.team_id == group.team_id, kind.member_key == group.id)


async def create_group(
    kind: GroupKind, session: AsyncSession, *, team_id: int, values: dict[str, Any], now: datetime
) -> Group:
    """A new group of the validated values."""
    if kind.unique_names:
        await _check_name(kind, session, team_id=team_id, name=values["name"])
    group = kind.model(team_id=team_id, created_at=now, updated_at=now, **values)
    session.add(group)
    await _flush(kind, session, group)
    return group


async def create_from_body(kind: GroupKind, write: Writing, body: dict[str, Any]) -> Group:
    """A group from a request body, every rule checked: the API's and the console's one path."""
    values = schemas_of(kind).parse_create(body, team_name=write.team_name)
    return await create_group(
        kind, write.session, team_id=write.team_id, values=values, now=write.now
    )


async def update_from_body(
    kind: GroupKind, write: Writing, group: Group, body: dict[str, Any]
) -> Group:
    """A PATCH body checked, then stored (API and console)."""
    changes = schemas_of(kind).parse_update(body, team_name=write.team_name)
    return await update_group(kind, write.session, group=group, changes=changes, now=write.now)


async def update_group(
    kind: GroupKind, session: AsyncSession, *, group: Group, changes: dict[str, Any], now: datetime
) -> Group:
    """Apply the sent, validated fields; a change of `paused` pauses or resumes the members."""
    if kind.unique_names and "name" in changes:
        await _check_name(kind, session, team_id=group.team_id, name=changes["name"], group=group)
    for name in ("name", "sort_index"):
        if name in changes:
            setattr(group, name, changes[name])
    paused = changes.get("paused")  # sent only to a kind with pause_member
    if paused is not None and paused != getattr(group, "paused"):  # noqa: B009
        setattr(group, "paused", paused)  # noqa: B010  (a SourceGroup has no paused)
        await _pause_members(kind, session, group=group, paused=paused, now=now)
    group.updated_at = now
    await _flush(kind, session, group)
    return group


async def delete_group(kind: GroupKind, write: Writing, group: Group) -> None:
    """Delete the group (and the status page resources showing it); its members stay,
    ungrouped. No member is loaded in the session, so none needs synchronizing."""
    session, now = write.session, write.now
    member = kind.member_model
    await session.execute(
        update(member)
        .where(member.team_id == group.team_id, kind.member_key == group.id)
        .values({kind.member_key: None, member.updated_at: now})
        .execution_options(synchronize_session=False)
    )
    for column in kind.also_grouped:
        await session.execute(
            update(column.class_)
            .where(column == group.id)
            .values({column: None})
            .execution_options(synchronize_session=False)
        )
    if kind.shown_as is None:
        await session.delete(group)
        await session.flush()
    else:
        await delete_named(session, group, item_type=kind.shown_as)


async def _pause_members(
    kind: GroupKind, session: AsyncSession, *, group: Group, paused: bool, now: datetime
) -> None:
    assert kind.pause_member is not None
    changing = members_of(kind, group).where(kind.member_model.paused != paused)
    members = list(await session.scalars(changing))
    for member in members:
        kind.pause_member(member, paused, now)
        member.updated_at = now
    if kind.announce_pause is not None and members:
        await session.flush()
        for member in members:
            await kind.announce_pause(session, member, now)


async def _check_name(
    kind: GroupKind, session: AsyncSession, *, team_id: int, name: str, group: Group | None = None
) -> None:
    stmt = select(kind.model.id).where(kind.model.team_id == team_id, kind.model.name == name)
    if group is not None:
        stmt = stmt.where(kind.model.id != group.id)
    if await session.scalar(stmt) is not None:
        raise _name_in_use(kind, name)


async def _flush(kind: GroupKind, session: AsyncSession, group: Group) -> None:
    try:
        await session.flush()
    except IntegrityError:
        if not kind.unique_names:
            raise
        raise _name_in_use(kind, group.name) from None  # a concurrent request took it first


def _name_in_use(kind: GroupKind, name: str) -> InvalidRequest:
    return InvalidRequest.field(
        "name", f"is already used by another {kind.name} of this team ({name!r})"
    )
