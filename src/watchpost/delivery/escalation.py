"""Running escalation policies: a run per incident that names a policy, its steps due in turn.

Started when the incident's `started` event is dispatched; each due step (an `escalation`)
makes deliveries of that event to its members; the run advances by the next step's
`wait_before`, repeats `repeat_count` times after `repeat_delay`, and stops for good once the
incident is acknowledged or resolved. Whoever a run told is told of the resolution. Runs are
claimed with `FOR UPDATE SKIP LOCKED` in the transaction that does the step, so a step runs
once across workers, and a restart loses nothing: the schedule is the `next_at` column.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.delivery import targets
from watchpost.delivery.models import Delivery
from watchpost.delivery.targets import Target
from watchpost.oncall.now import on_call_now
from watchpost.policies.models import Policy, PolicyRun
from watchpost.teams.models import User
from watchpost.webhooks.models import OutgoingWebhook


@functools.cache
def _incidents() -> Table:
    """The incidents table, as the run's foreign key names it (incidents is above delivery;
    read when first needed, once every table is mapped)."""
    (key,) = cast(Table, PolicyRun.__table__).c.incident_id.foreign_keys
    return key.column.table


def _wait(step: dict[str, Any] | None) -> float:
    return float((step or {}).get("wait_before") or 0)


async def start_runs(session: AsyncSession, events: Sequence[Any], *, now: datetime) -> None:
    """A run for each `started` incident event whose incident names a policy of its team."""
    wanted = [
        (event, event.payload["data"]["attributes"].get("escalation_policy_id"))
        for event in events
        if event.trigger_type == "incident_change" and event.event == "started"
    ]
    for event, policy_id in wanted:
        if policy_id is None:
            continue
        policy = await session.scalar(
            select(Policy).where(Policy.id == policy_id, Policy.team_id == event.team_id)
        )
        if policy is None or not policy.steps:
            continue
        session.add(
            PolicyRun(
                team_id=event.team_id,
                incident_id=event.subject_id,
                policy_id=policy.id,
                event_id=event.id,
                next_at=now + timedelta(seconds=_wait(policy.steps[0])),
                told=[],
                created_at=now,
                updated_at=now,
            )
        )
    await session.flush()


async def told_of(session: AsyncSession, *, incident_id: int, now: datetime) -> list[Target]:
    """Whom the incident's runs told (they stop now: it is resolved)."""
    runs = list(
        await session.scalars(select(PolicyRun).where(PolicyRun.incident_id == incident_id))
    )
    for run in runs:
        run.next_at, run.updated_at = None, now
    return targets.unique(target for run in runs for target in run.told)


async def _members(
    session: AsyncSession, team_id: int, members: list[dict[str, Any]], now: datetime
) -> list[Target]:
    found: list[Target] = []
    for member in members:
        kind, ident = member.get("type"), member.get("id")
        if kind == "entire_team":
            found += (await targets.members(session, {team_id}))[team_id]
        elif kind == "user":
            user = select(User.email).where(User.team_id == team_id)
            user = (
                user.where(User.id == ident)
                if ident
                else user.where(User.email == (member.get("email") or "").lower())
            )
            found += [
                {"channel": "email", "recipient": email} for email in await session.scalars(user)
            ]
        elif kind in ("webhook", "all_webhook_integrations"):
            hooks = select(OutgoingWebhook.id).where(
                OutgoingWebhook.team_id == team_id, OutgoingWebhook.disabled_at.is_(None)
            )
            if kind == "webhook":
                hooks = hooks.where(OutgoingWebhook.id == ident)
            found += [{"channel": "webhook", "webhook_id": i} for i in await session.scalars(hooks)]
        elif kind == "current_on_call":  # the calendar's (null: the default's) people now
            people = await on_call_now(session, team_id, ident, now)
            found += [{"channel": "email", "recipient": user.email} for user in people]
        elif kind in ("notification_channel", "all_notification_channels"):
            chats = (await targets.channels(session, {team_id}))[team_id]
            found += [
                c for c in chats if kind != "notification_channel" or c["channel_id"] == ident
            ]
    return targets.unique(found)


async def escalate(session: AsyncSession, *, now: datetime, limit: int) -> int:
    """Run the due steps of up to `limit` runs; how many steps ran. Call inside a write
    transaction."""
    runs = list(
        await session.scalars(
            select(PolicyRun)
            .where(PolicyRun.next_at <= now)
            .order_by(PolicyRun.next_at, PolicyRun.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )
    ran = 0
    for run in runs:
        state = (
            await session.execute(
                select(_incidents().c.acknowledged_at, _incidents().c.resolved_at).where(
                    _incidents().c.id == run.incident_id
                )
            )
        ).first()
        policy = await session.get(Policy, run.policy_id)
        run.updated_at = now
        if state is None or state[0] is not None or state[1] is not None or policy is None:
            run.next_at = None  # someone is on it, or it is over
            continue
        steps = policy.steps
        step = steps[run.step] if run.step < len(steps) else None
        if step is not None and step.get("type") == "escalation":
            told = await _members(session, run.team_id, step.get("step_members") or [], now)
            if told:
                await session.execute(
                    insert(Delivery),
                    targets.deliveries_for(run.team_id, run.event_id, told, due=now, now=now),
                )
            run.told = targets.unique([*run.told, *told])
        ran += 1
        if run.step + 1 < len(steps):
            run.step += 1
            run.next_at = now + timedelta(seconds=_wait(steps[run.step]))
        elif run.round < policy.repeat_count:
            run.step, run.round = 0, run.round + 1
            run.next_at = now + timedelta(seconds=policy.repeat_delay + _wait(steps[0]))
        else:
            run.next_at = None
    await session.flush()
    return ran
