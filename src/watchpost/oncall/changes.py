"""Noticing that the people on call changed, for the `on_call_change` webhooks.

Each calendar keeps who was on call when last looked at and `next_check_at`: the next event
boundary, or now after an edit of its events, rotation or name. The delivery worker's pass
looks only at calendars due (an indexed range read), so an idle pass costs nothing more;
a calendar whose people differ from those kept gives one change, shown as the API shows the
calendar. Calendars are claimed with `FOR UPDATE SKIP LOCKED`, so one worker looks at each.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.queries import claim_due
from watchpost.oncall import calendars
from watchpost.oncall import now as on_call
from watchpost.oncall.models import OnCallCalendar
from watchpost.teams.models import Team


@dataclass(frozen=True)
class Change:
    """A calendar whose people on call changed: its team, and the calendar as the API shows
    it (`data`) with those people (`included`)."""

    team_id: int
    data: dict[str, Any]
    included: list[dict[str, Any]]


async def due_changes(session: AsyncSession, *, now: datetime, limit: int) -> list[Change]:
    """Look at up to `limit` due calendars; the changes found. Call in a write transaction."""
    due = await claim_due(
        session, OnCallCalendar, OnCallCalendar.next_check_at, now=now, limit=limit
    )
    changed: list[OnCallCalendar] = []
    for calendar in due:
        people = await on_call.on_call_now(session, calendar.team_id, calendar.id, now)
        ids = sorted(user.id for user in people)
        if ids != sorted(calendar.on_call_user_ids or []):
            calendar.on_call_user_ids = ids
            changed.append(calendar)
        calendar.next_check_at = await on_call.next_boundary(session, calendar.id, now)
    await session.flush()
    found: list[Change] = []
    for calendar in changed:
        name = await session.scalar(select(Team.name).where(Team.id == calendar.team_id))
        shown, included = await calendars.documents(session, [calendar], name or "", now)
        found.append(Change(calendar.team_id, shown[0], included))
    return found
