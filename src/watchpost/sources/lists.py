"""Sources and source groups as the API shows them, and the pages of their lists."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

from sqlalchemy import bindparam
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import SecretBox
from watchpost.db.rows import ListColumns
from watchpost.http.pagination import PagedSelect, PageRequest, ResourcePage
from watchpost.sources.models import Source, SourceGroup
from watchpost.sources.service import GROUP, SOURCE

# What a list renders, as plain columns (db/rows.py).
SOURCE_COLUMNS = ListColumns(
    Source,
    (
        "id",
        "team_id",
        "name",
        "source_group_id",
        "table_name",
        "platform",
        "token_encrypted",
        "ingesting_paused",
        "logs_retention",
        "metrics_retention",
        "live_tail_pattern",
        "created_at",
        "updated_at",
    ),
)


def source_resources(
    rows: Iterable[Sequence[Any]], *, team_name: str, host: str, box: SecretBox
) -> list[dict[str, Any]]:
    """Sources as API resources, from rows of SOURCE_COLUMNS.

    One comprehension that unpacks each row: 250 rows a page, so every call and attribute
    lookup per row shows in the page's cost.
    """
    decrypt = box.decrypt
    return [
        {
            "id": str(id_),
            "type": SOURCE,
            "attributes": {
                "team_id": team_id,
                "team_name": team_name,
                "name": name,
                "source_group_id": source_group_id,
                "table_name": table_name,
                "platform": platform,
                "token": decrypt(token_encrypted),
                "ingesting_host": host,
                "ingesting_paused": ingesting_paused,
                "logs_retention": logs_retention,
                "metrics_retention": metrics_retention,
                "live_tail_pattern": live_tail_pattern,
                "created_at": created_at,
                "updated_at": updated_at,
            },
        }
        for (
            id_,
            team_id,
            name,
            source_group_id,
            table_name,
            platform,
            token_encrypted,
            ingesting_paused,
            logs_retention,
            metrics_retention,
            live_tail_pattern,
            created_at,
            updated_at,
        ) in rows
    ]


_team_sources = SOURCE_COLUMNS.select().where(Source.team_id == bindparam("team_id"))
# The lists of sources as rows of SOURCE_COLUMNS, built once (bound: team_id, group_id): all
# of a team's, and a group's.
_TEAM_SOURCES = PagedSelect(_team_sources, key=Source.id, counted=Source)
_GROUP_SOURCES = PagedSelect(
    _team_sources.where(Source.source_group_id == bindparam("group_id")), key=Source.id
)


async def list_sources(
    session: AsyncSession,
    *,
    team_id: int,
    team_name: str,
    host: str,
    box: SecretBox,
    paging: PageRequest,
) -> ResourcePage:
    """A page of the team's sources."""
    render = partial(source_resources, team_name=team_name, host=host, box=box)
    return await _TEAM_SOURCES.page(session, paging, {"team_id": team_id}, render)


async def list_group_sources(
    session: AsyncSession,
    *,
    group: SourceGroup,
    team_name: str,
    host: str,
    box: SecretBox,
    paging: PageRequest,
) -> ResourcePage:
    """A page of the group's sources."""
    render = partial(source_resources, team_name=team_name, host=host, box=box)
    params = {"team_id": group.team_id, "group_id": group.id}
    return await _GROUP_SOURCES.page(session, paging, params, render)


GROUP_COLUMNS = ListColumns(
    SourceGroup, ("id", "name", "sort_index", "team_id", "created_at", "updated_at")
)
_TEAM_GROUPS = PagedSelect(
    GROUP_COLUMNS.select().where(SourceGroup.team_id == bindparam("team_id")), key=SourceGroup.id
)


def group_resources(rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    """Source groups as API resources, from rows of GROUP_COLUMNS."""
    return [
        {
            "id": str(id_),
            "type": GROUP,
            "attributes": {
                "name": name,
                "sort_index": sort_index,
                "team_id": team_id,
                "created_at": created_at,
                "updated_at": updated_at,
            },
        }
        for id_, name, sort_index, team_id, created_at, updated_at in rows
    ]


async def list_groups(session: AsyncSession, *, team_id: int, paging: PageRequest) -> ResourcePage:
    """A page of the team's source groups."""
    return await _TEAM_GROUPS.page(session, paging, {"team_id": team_id}, group_resources)
