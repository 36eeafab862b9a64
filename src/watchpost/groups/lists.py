"""Groups as the API shows them, read as plain rows (db/rows.py): the pages of a kind's
collection and, through the same renderer, a single group."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.rows import ListColumns
from watchpost.groups.group_kinds import Group, GroupKind
from watchpost.listing import PageRequest, ResourcePage, TeamList


@cache
def _columns(kind: GroupKind) -> ListColumns:
    paused = ("paused",) if kind.pause_member is not None else ()
    names = ("id", "name", "sort_index", *paused, "team_id", "created_at", "updated_at")
    return ListColumns(kind.model, names)


@cache
def _list(kind: GroupKind) -> TeamList:
    return TeamList(_columns(kind))


def group_resources(
    kind: GroupKind, rows: Iterable[Sequence[Any]], *, team_name: str
) -> list[dict[str, Any]]:
    """Groups of kind as API resources, from rows of the kind's columns."""
    names = _columns(kind).names
    shows_name = kind.team_attribute == "team_name"
    resources = []
    for row in rows:
        values = dict(zip(names, row, strict=True))
        attributes = {"name": values["name"], "sort_index": values["sort_index"]}
        if "paused" in values:
            attributes["paused"] = values["paused"]
        attributes[kind.team_attribute] = team_name if shows_name else values["team_id"]
        attributes["created_at"] = values["created_at"]
        attributes["updated_at"] = values["updated_at"]
        resources.append({"id": str(values["id"]), "type": kind.api_type, "attributes": attributes})
    return resources


def group_resource(kind: GroupKind, group: Group, *, team_name: str) -> dict[str, Any]:
    (resource,) = group_resources(kind, [_columns(kind).row(group)], team_name=team_name)
    return resource


async def list_groups(
    kind: GroupKind, session: AsyncSession, *, team_id: int, team_name: str, paging: PageRequest
) -> ResourcePage:
    """A page of the team's groups of kind."""
    return await _list(kind).page(
        session,
        paging,
        lambda rows: group_resources(kind, rows, team_name=team_name),
        team_id=team_id,
    )
