"""Comments on an incident (the hosted API's `incident_comment`) and reopening one.

A comment is a row of its own (it can be read, edited and deleted) and, when written, a
`comment` entry on the incident's timeline and a `comment` event to the incident's webhooks
(with the comment beside the incident in the payload), both through `transitions.apply`.
Editing or deleting a comment changes the row only: the timeline keeps what was said.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.db.queries import added, check_held, team_object
from watchpost.errors import Conflict
from watchpost.incidents.models import Incident, IncidentComment
from watchpost.incidents.transitions import Change, apply, open_incident_for

COMMENT: Final = "incident_comment"
MAX_CONTENT: Final = 10_000
"""The longest comment, in characters (as an incident's summary)."""
MAX_COMMENTS: Final = 1_000
"""Comments one incident can hold: its list is answered whole, so it is bounded."""


def comment_attributes(comment: IncidentComment) -> dict[str, Any]:
    return {
        "id": comment.id,
        "content": comment.content,
        "user_id": comment.user_id,
        "user_email": comment.user_email,
        "created_at": isoformat_ms(comment.created_at),
        "updated_at": isoformat_ms(comment.updated_at),
    }


def comment_resource(comment: IncidentComment) -> dict[str, Any]:
    return {"id": str(comment.id), "type": COMMENT, "attributes": comment_attributes(comment)}


async def comments_of(session: AsyncSession, incident: Incident) -> Sequence[IncidentComment]:
    """The incident's comments, oldest first (at most MAX_COMMENTS)."""
    found = await session.scalars(
        select(IncidentComment)
        .where(IncidentComment.incident_id == incident.id)
        .order_by(IncidentComment.id)
        .limit(MAX_COMMENTS)
    )
    return found.all()


async def get_comment(
    session: AsyncSession, *, team_id: int, incident_id: int, comment_id: int
) -> IncidentComment:
    return await team_object(
        session,
        IncidentComment,
        COMMENT,
        team_id=team_id,
        object_id=comment_id,
        incident_id=incident_id,
    )


async def add_comment(
    session: AsyncSession,
    incident: Incident,
    *,
    content: str,
    by: str,
    now: datetime,
    user_id: int | None = None,
    user_email: str | None = None,
) -> IncidentComment:
    """A new comment, its timeline entry (by `by`) and its `comment` event; 422 when the
    incident holds MAX_COMMENTS already."""
    await check_held(
        session,
        IncidentComment.incident_id,
        incident.id,
        limit=MAX_COMMENTS,
        full=f"An incident holds at most {MAX_COMMENTS} comments; this one is full",
    )
    comment = IncidentComment(
        team_id=incident.team_id,
        incident_id=incident.id,
        content=content,
        user_id=user_id,
        user_email=user_email,
        created_at=now,
        updated_at=now,
    )
    await added(session, comment)
    await apply(
        session,
        incident,
        Change.COMMENT,
        at=now,
        by=user_email or by,
        text=content,
        extra={"comment": {**comment_attributes(comment), "author": user_email or by}},
    )
    return comment


async def reopen(session: AsyncSession, incident: Incident, *, by: str, now: datetime) -> None:
    """Open a resolved incident again (409 when it is open, or when the object it is about
    (a monitor, heartbeat, collector target or incoming webhook) has another open incident:
    an object has at most one)."""
    if incident.resolved_at is None:
        raise Conflict(f"Incident {incident.id} is not resolved")
    for column in ("monitor_id", "heartbeat_id", "collector_target_id", "incoming_webhook_id"):
        subject = getattr(incident, column)
        if subject is not None:
            current = await open_incident_for(session, **{column: subject})
            if current is not None and current.id != incident.id:
                raise Conflict(
                    f"Its {column.removesuffix('_id').replace('_', ' ')} has another open "
                    f"incident (id = {current.id})"
                )
    await apply(session, incident, Change.REOPENED, at=now, by=by)
