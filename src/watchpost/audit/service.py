"""Writing and reading the audit log. No HTTP here."""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from sqlalchemy import func, or_
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.audit.models import AuditEvent
from watchpost.clock import isoformat_ms
from watchpost.db.queries import team_rows
from watchpost.listing import Page, PageRequest, Resource, paginate, resource

if TYPE_CHECKING:  # teams records its tokens here: no import back at run time
    from watchpost.teams.models import ApiToken

TYPE: Final = "audit_event"


@dataclass(frozen=True)
class Actor:
    """Who did it: a signed-in person, an API token, the command line or Watchpost itself."""

    kind: str
    label: str
    id: int | None = None
    address: str | None = None


async def record(
    db: AsyncSession,
    *,
    team_id: int,
    actor: Actor,
    action: str,
    now: datetime,
    subject_type: str | None = None,
    subject_id: int | None = None,
    subject: str | None = None,
    details: dict[str, Any] | None = None,
) -> None:
    """Adds an entry in the caller's transaction: it is kept exactly when the change is."""
    db.add(
        AuditEvent(
            team_id=team_id,
            at=now,
            actor_kind=actor.kind,
            actor_id=actor.id,
            actor=actor.label[:320],
            action=action,
            subject_type=subject_type,
            subject_id=subject_id,
            subject=None if subject is None else subject[:255],
            details=details or {},
            address=actor.address,
        )
    )


def cli_actor() -> Actor:
    """The command line as an actor, named by the operating system's user running it."""
    try:
        who = getpass.getuser()
    except (KeyError, OSError):
        who = "unknown"
    return Actor("cli", f"command line ({who})")


async def record_token(
    db: AsyncSession, token: ApiToken, *, action: str, actor: Actor, now: datetime
) -> None:
    """A token's creation or revocation (token.created, token.revoked), named by its prefix."""
    label = f"{token.prefix}…" + (f" ({token.name})" if token.name else "")
    await record(
        db,
        team_id=token.team_id,
        actor=actor,
        action=action,
        now=now,
        subject_type="token",
        subject_id=token.id,
        subject=label,
    )


@dataclass(frozen=True)
class Filter:
    """Which entries a reader wants: by who (part of the actor's label, any case), what (an
    action, or its object's part: "monitor" finds monitor.paused and monitor.created), and
    a time range [since, until). Empty fields do not filter."""

    actor: str = ""
    action: str = ""
    since: datetime | None = None
    until: datetime | None = None


def _like(text: str) -> str:
    escaped = text.lower().replace("/", "//").replace("%", "/%").replace("_", "/_")
    return f"%{escaped}%"


async def page(
    db: AsyncSession, *, team_id: int, paging: PageRequest, where: Filter = Filter()
) -> Page[AuditEvent]:
    """Newest first."""
    stmt = team_rows(AuditEvent, team_id=team_id)
    if where.actor:
        stmt = stmt.where(func.lower(AuditEvent.actor).like(_like(where.actor), escape="/"))
    if where.action:
        wanted = where.action.lower()
        stmt = stmt.where(
            or_(
                AuditEvent.action == wanted,
                AuditEvent.action.startswith(wanted + ".", autoescape=True),
            )
        )
    if where.since is not None:
        stmt = stmt.where(AuditEvent.at >= where.since)
    if where.until is not None:
        stmt = stmt.where(AuditEvent.at < where.until)
    return await paginate(db, stmt, paging, order_by=AuditEvent.id.desc())


def render(event: AuditEvent) -> Resource:
    return resource(
        TYPE,
        event.id,
        {
            "at": isoformat_ms(event.at),
            "actor_type": event.actor_kind,
            "actor_id": event.actor_id,
            "actor": event.actor,
            "action": event.action,
            "subject_type": event.subject_type,
            "subject_id": event.subject_id,
            "subject": event.subject,
            "details": event.details,
            "ip_address": event.address,
        },
    )
