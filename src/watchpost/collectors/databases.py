"""A collector's `databases`: the hosted API's older way of making database targets, which its
Terraform provider still sends (deprecated there for collector targets).

Each entry is a collector target of kind `service_type`, made, changed and deleted through
the targets' own rules, and listed at `GET /api/v1/collectors/{id}/databases`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.collectors import service
from watchpost.collectors.hosted import SERVICE_TYPES, DatabaseEntry
from watchpost.collectors.models import CollectorTarget
from watchpost.collectors.schemas import parse_target_create, parse_target_update
from watchpost.crypto import SecretBox
from watchpost.errors import InvalidRequest
from watchpost.listing import Page, PageRequest, paginate

FIELD: Final = "databases"
DATABASE: Final = "collector_database"
_TARGET_FIELDS: Final = ("host", "port", "username", "password", "ssl_mode", "tls")


def attributes(target: CollectorTarget) -> dict[str, Any]:
    """A database as the API shows it: its kind, where and how it is reached (no password)."""
    shown = {name: getattr(target, name) for name in _TARGET_FIELDS if name != "password"}
    return {"service_type": target.kind, **shown}


def _body(entry: DatabaseEntry) -> dict[str, Any]:
    return {
        name: getattr(entry, name) for name in _TARGET_FIELDS if getattr(entry, name) is not None
    }


def _named(error: InvalidRequest, index: int) -> InvalidRequest:
    """A target's problems, told as those of the entry that caused them."""
    return InvalidRequest(
        [(FIELD, f"{FIELD}[{index}]: {message}") for _, message in error.problems]
    )


async def apply(
    session: AsyncSession,
    *,
    team_id: int,
    collector_id: int,
    entries: list[DatabaseEntry],
    box: SecretBox,
    now: datetime,
) -> None:
    """Create, change or delete the entries' targets, each by the targets' rules."""
    for index, entry in enumerate(entries):
        try:
            if entry.id is None:
                if entry.service_type is None:
                    raise InvalidRequest([(FIELD, "service_type is required for a new database")])
                data = parse_target_create({"kind": entry.service_type, **_body(entry)})
                await service.create_target(
                    session,
                    team_id=team_id,
                    collector_id=collector_id,
                    data=data,
                    box=box,
                    now=now,
                )
                continue
            target = await service.get_target(
                session, team_id=team_id, collector_id=collector_id, target_id=entry.id
            )
            if target.kind not in SERVICE_TYPES:
                raise InvalidRequest([(FIELD, f"target {entry.id} is not a database")])
            if entry.destroy:
                await service.delete_target(session, target=target, now=now)
                continue
            body = _body(entry)
            if entry.service_type is not None:
                body["kind"] = entry.service_type
            change = parse_target_update(body, service.target_values(target))
            await service.update_target(
                session,
                target=target,
                data=change,
                sent=list(change.model_fields_set),
                box=box,
                now=now,
            )
        except InvalidRequest as error:
            raise _named(error, index) from None


async def of_collector(
    session: AsyncSession, *, team_id: int, collector_id: int, paging: PageRequest
) -> Page[CollectorTarget]:
    """A page of the collector's database targets, oldest first."""
    stmt = select(CollectorTarget).where(
        CollectorTarget.team_id == team_id,
        CollectorTarget.collector_id == collector_id,
        CollectorTarget.kind.in_(SERVICE_TYPES),
    )
    return await paginate(session, stmt, paging, order_by=CollectorTarget.id)
