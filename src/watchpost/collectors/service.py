"""What collectors and their targets do: create, read, change, delete. No HTTP in here."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    Row,
    Table,
    bindparam,
    insert,
    select,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms, optional_isoformat_ms
from watchpost.collectors import hosted
from watchpost.collectors.checking import refresh_collector
from watchpost.collectors.models import Collector, CollectorTarget
from watchpost.collectors.schemas import (
    COLLECTOR_NOT_NULL,
    CollectorCreate,
    CollectorUpdate,
    TargetCreate,
    TargetUpdate,
)
from watchpost.collectors.target_kinds import (
    CONNECTION_FIELDS,
    KIND_FIELDS,
    KIND_RULES,
    WRITE_ONLY_FIELDS,
)
from watchpost.crypto import SecretBox, random_token
from watchpost.db.queries import one_or_404, team_object, team_rows
from watchpost.errors import InvalidRequest, NotFound
from watchpost.incidents import service as incidents
from watchpost.listing import Page, PageRequest, paginate, team_page
from watchpost.problems import null_problems, sent_values
from watchpost.sources import hosted as sources_hosted
from watchpost.sources.service import group_problems
from watchpost.writing import Writing

COLLECTOR = "collector"
TARGET = "collector_target"
TARGET_SUBJECT = "collector_target"
"""How the check history names targets."""


# ---------------------------------------------------------------------------- collectors


def collector_attributes(collector: Collector, box: SecretBox, team_name: str) -> dict[str, Any]:
    return {
        "team_name": team_name,
        "source_group_id": collector.source_group_id,
        **hosted.attributes(collector.settings),
        "name": collector.name,
        "platform": collector.platform,
        "note": collector.note,
        "status": collector.status,
        "secret": box.decrypt(collector.secret_encrypted),
        "team_id": collector.team_id,
        "source_id": None,
        "logs_retention": collector.logs_retention,
        "metrics_retention": collector.metrics_retention,
        "pinged_at": optional_isoformat_ms(collector.pinged_at),
        "created_at": isoformat_ms(collector.created_at),
        "updated_at": isoformat_ms(collector.updated_at),
    }


async def _name_taken(
    session: AsyncSession, *, team_id: int, name: str, exclude_id: int | None = None
) -> bool:
    stmt = select(Collector.id).where(Collector.team_id == team_id, Collector.name == name)
    if exclude_id is not None:
        stmt = stmt.where(Collector.id != exclude_id)
    return (await session.scalar(stmt)) is not None


def _name_in_use(name: str) -> InvalidRequest:
    return InvalidRequest.field(
        "name", f"is already used by another collector of this team ({name!r})"
    )


async def create_collector(
    session: AsyncSession, *, team_id: int, data: CollectorCreate, box: SecretBox, now: datetime
) -> Collector:
    """A new collector with a fresh secret; names are unique within a team."""
    problems = await group_problems(session, team_id=team_id, group_id=data.source_group_id)
    if await _name_taken(session, team_id=team_id, name=data.name):
        problems += _name_in_use(data.name).problems
    if problems:
        raise InvalidRequest(problems)
    collector = Collector(
        team_id=team_id,
        name=data.name,
        platform=data.platform,
        note=data.note,
        status="pending",
        secret_encrypted=box.encrypt(random_token("wpc_")),
        logs_retention=data.logs_retention,
        metrics_retention=data.metrics_retention,
        source_group_id=data.source_group_id,
        settings=hosted.merged(None, data, data.model_fields_set, box) or None,
        created_at=now,
        updated_at=now,
    )
    session.add(collector)
    try:
        await session.flush()
    except IntegrityError:  # a concurrent create took the name first
        raise _name_in_use(data.name) from None
    return collector


async def list_collectors(
    session: AsyncSession, *, team_id: int, paging: PageRequest, name: str | None = None
) -> Page[Collector]:
    """A page of the team's collectors, or of those named `name` (the hosted API's filter)."""
    if name is None:
        return await team_page(session, Collector, paging, team_id=team_id)
    stmt = team_rows(Collector, team_id=team_id).where(Collector.name == name)
    return await paginate(session, stmt, paging, order_by=_collectors.id)


_collectors = Collector.__table__.c
# Built once: constructing the statement per request cost about as much as running it.
_GET_COLLECTOR = select(Collector).where(
    Collector.team_id == bindparam("team_id"), Collector.id == bindparam("collector_id")
)
_COLLECTOR_EXISTS = select(_collectors.id).where(
    _collectors.team_id == bindparam("team_id"), _collectors.id == bindparam("collector_id")
)


async def get_collector(session: AsyncSession, *, team_id: int, collector_id: int) -> Collector:
    return await one_or_404(
        session,
        _GET_COLLECTOR,
        COLLECTOR,
        collector_id,
        params={"team_id": team_id, "collector_id": collector_id},
    )


async def check_collector(session: AsyncSession, *, team_id: int, collector_id: int) -> None:
    """get_collector() for callers that only need it to exist: no ORM object is built."""
    found = await session.scalar(
        _COLLECTOR_EXISTS, {"team_id": team_id, "collector_id": collector_id}
    )
    if found is None:
        raise NotFound(COLLECTOR, collector_id)


async def update_collector(
    session: AsyncSession,
    *,
    collector: Collector,
    data: CollectorUpdate,
    sent: set[str],
    box: SecretBox,
    now: datetime,
) -> Collector:
    """Apply the sent fields; platform is fixed after creation."""
    problems: list[tuple[str | None, str]] = []
    if data.platform is not None and data.platform != collector.platform:
        problems.append(
            (
                "platform",
                f"platform cannot be changed (this collector runs on {collector.platform})",
            )
        )
    problems += null_problems(sent_values(data, sent), COLLECTOR_NOT_NULL)
    if data.name is not None and await _name_taken(
        session, team_id=collector.team_id, name=data.name, exclude_id=collector.id
    ):
        problems += _name_in_use(data.name).problems
    if "source_group_id" in sent:
        problems += await group_problems(
            session, team_id=collector.team_id, group_id=data.source_group_id
        )
    if problems:
        raise InvalidRequest(problems)
    columns = ("name", "note", "logs_retention", "metrics_retention", "source_group_id")
    await sources_hosted.store_changes(
        session,
        collector,
        data,
        sent,
        columns=columns,
        box=box,
        now=now,
        fields=hosted.HOSTED_FIELDS,
    )
    return collector


async def delete_collector(write: Writing, collector: Collector) -> None:
    """Delete the collector and, by cascade, its targets and their check history; the
    targets' open incidents are resolved (nothing is left to recover them)."""
    session, now = write.session, write.now
    target_ids = await session.scalars(
        select(CollectorTarget.id).where(CollectorTarget.collector_id == collector.id)
    )
    for target_id in target_ids.all():
        await incidents.forget_checked(
            session, subject_type=TARGET_SUBJECT, subject_id=target_id, now=now
        )
    await session.delete(collector)
    await session.flush()


# ---------------------------------------------------------------------- collector targets


def target_attributes(target: CollectorTarget | Row[Any]) -> dict[str, Any]:
    """From the ORM object or a row of every column of collector_targets."""
    return {
        "kind": target.kind,
        "host": target.host,
        "port": target.port,
        "service": target.service,
        "listen_ip": target.listen_ip,
        "endpoint": target.endpoint,
        "scheme": target.scheme,
        "username": target.username,
        "ssl_mode": target.ssl_mode,
        "tls": target.tls,
        "location_id": target.location_id,
        "status": target.status,
        "enabled": target.enabled,
        "container": None,
        "detected_host": None,
        "autogenerated": target.autogenerated,
        "paused_until": optional_isoformat_ms(target.paused_until),
        "consecutive_failure_count": target.consecutive_failure_count,
        "last_ping_at": optional_isoformat_ms(target.last_ping_at),
        "last_error": target.last_error,
        "created_at": isoformat_ms(target.created_at),
        "updated_at": isoformat_ms(target.updated_at),
    }


def _seal(value: str | None, box: SecretBox) -> str | None:
    return box.encrypt(value) if value is not None else None


def _set_secret(target: CollectorTarget, name: str, value: str | None, box: SecretBox) -> None:
    setattr(target, f"{name}_encrypted", _seal(value, box))


_targets = cast(Table, CollectorTarget.__table__)
# A Core INSERT … RETURNING instead of an ORM object: the ORM's unit of work (instance
# state, identity map, flush) cost more than the rest of the request.
_INSERT_TARGET = insert(_targets).returning(*_targets.c)


async def create_target(
    session: AsyncSession,
    *,
    team_id: int,
    collector_id: int,
    data: TargetCreate,
    box: SecretBox,
    now: datetime,
) -> Row[Any]:
    """A new target, `pending` until probed (or `disabled`); credentials stored encrypted.

    It is due for its first check at once. Returns the stored row (every column).
    """
    values: dict[str, Any] = {
        name: getattr(data, name) for name in KIND_FIELDS if name not in WRITE_ONLY_FIELDS
    }
    for name, default in KIND_RULES[data.kind].defaults.items():
        if values.get(name) is None:
            values[name] = default
    for name in WRITE_ONLY_FIELDS:
        values[f"{name}_encrypted"] = _seal(getattr(data, name), box)
    values.update(
        team_id=team_id,
        collector_id=collector_id,
        kind=data.kind,
        host=data.host,
        enabled=data.enabled,
        status="pending" if data.enabled else "disabled",
        autogenerated=False,
        consecutive_failure_count=0,
        created_at=now,
        updated_at=now,
        next_check_at=now,
    )
    return (await session.execute(_INSERT_TARGET, values)).one()


async def list_targets(
    session: AsyncSession, *, team_id: int, collector_id: int, paging: PageRequest
) -> Page[CollectorTarget]:
    return await team_page(
        session, CollectorTarget, paging, team_id=team_id, collector_id=collector_id
    )


async def get_target(
    session: AsyncSession, *, team_id: int, collector_id: int, target_id: int
) -> CollectorTarget:
    return await team_object(
        session,
        CollectorTarget,
        TARGET,
        team_id=team_id,
        object_id=target_id,
        collector_id=collector_id,
    )


def target_values(target: CollectorTarget) -> dict[str, Any]:
    """The target's kind-dependent values; write-only ones only say whether they are set."""
    values: dict[str, Any] = {"kind": target.kind, "host": target.host}
    for name in KIND_FIELDS:
        if name in WRITE_ONLY_FIELDS:
            values[name] = "set" if getattr(target, f"{name}_encrypted") is not None else None
        else:
            values[name] = getattr(target, name)
    return values


async def update_target(
    session: AsyncSession,
    *,
    target: CollectorTarget,
    data: TargetUpdate,
    sent: Sequence[str],
    box: SecretBox,
    now: datetime,
) -> CollectorTarget:
    """Apply a validated PATCH. A connection change or re-enabling means: probe anew."""
    reconnect = False
    for name in sent:
        if name == "kind":
            continue
        value = getattr(data, name)
        if name in WRITE_ONLY_FIELDS:
            _set_secret(target, name, value, box)
            reconnect = True
        elif name == "enabled":
            if value is not None and value != target.enabled:
                target.enabled = value
                reconnect = True
        elif getattr(target, name) != value:
            setattr(target, name, value)
            reconnect = reconnect or name in CONNECTION_FIELDS
    for name, default in KIND_RULES[target.kind].defaults.items():
        if getattr(target, name) is None:
            setattr(target, name, default)
    if reconnect:
        target.schedule_now(now)  # and any check still running with the old settings is void
    if not target.enabled:
        target.status = "disabled"
    elif reconnect:
        target.status = "pending"
        target.consecutive_failure_count = 0
        target.last_error = None
    target.updated_at = now
    await session.flush()
    if reconnect:  # only then can the target's status, and so its collector's, have changed
        await refresh_collector(session, target.collector_id)
    return target


def check_target_now(target: CollectorTarget, now: datetime) -> bool:
    """Make the target due at once, for the engine's next claim; False while disabled or
    paused (never checked then)."""
    if not target.enabled or (target.paused_until is not None and target.paused_until > now):
        return False
    target.due_now(now)
    return True


async def delete_target(session: AsyncSession, *, target: CollectorTarget, now: datetime) -> None:
    """Delete the target and its check history, in one transaction with what depends on it:
    its open incident is resolved (no check will ever recover it) and its collector's status
    recomputed without it (a deleted down target must not keep the collector down)."""
    await incidents.forget_checked(
        session, subject_type=TARGET_SUBJECT, subject_id=target.id, now=now
    )
    collector_id = target.collector_id
    await session.delete(target)
    await session.flush()
    await refresh_collector(session, collector_id)
