"""Running escalation policies: a run per incident that names a policy, its steps due in turn.

Started when the incident's `started` (or `reopened`) event is dispatched. Each due step does
what its type says:
- `escalation` makes deliveries of that event to its members (step_members.py: people in the
  ways of the step's urgency, webhooks, channels; a `policy` member starts that policy for the
  incident beside this one);
- `time_branching` and `metadata_branching` act when their rule matches the moment or the
  incident's metadata (by default: the run moves to the step's policy), else the run goes on;
- `instructions` writes its text on the incident as a comment;
- `resolve_remove` resolves (or removes) the incident.
The run advances by the next step's wait (`wait_before` seconds, or the next `wait_until_time`
in its time zone), repeats `repeat_count` times after `repeat_delay`, then moves to the
`fallback_policy_id` if there is one, and stops for good once the incident is acknowledged or
resolved. Whoever a run told is told of the resolution. Runs are claimed with
`FOR UPDATE SKIP LOCKED` in the transaction that does the step, so a step runs once across
workers, and a restart loses nothing: the schedule is the `next_at` column.

What a step does to the incident itself (resolve, remove, comment) goes through `Incidents`,
given by the incidents package (it sits above this one), so every change of an incident still
happens in one place.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Final, Protocol, cast

from sqlalchemy import Table, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.db.queries import claim_due
from watchpost.delivery import targets
from watchpost.delivery.models import Delivery
from watchpost.delivery.policy_rules import (
    due_after,
    in_time_window,
    instructions_text,
    metadata_matches,
)
from watchpost.delivery.step_members import members_of, ways_of
from watchpost.delivery.targets import Target
from watchpost.policies.models import Policy, PolicyRun

log = logging.getLogger("watchpost.delivery")

MAX_HOPS: Final = 10
"""How many times one run may move to another policy (branches, fallbacks, chained policies):
policies that name each other stop there instead of running forever."""
OPENING: Final = frozenset({"started", "reopened"})
"""The incident events that start the incident's policy."""


class Incidents(Protocol):
    """What a policy's steps may do to an incident (given by the incidents package)."""

    async def resolve(self, session: AsyncSession, incident_id: int, *, by: str) -> None: ...

    async def remove(self, session: AsyncSession, incident_id: int) -> None: ...

    async def comment(
        self, session: AsyncSession, incident_id: int, *, content: str, by: str
    ) -> None: ...


@functools.cache
def _incidents() -> Table:
    """The incidents table, as the run's foreign key names it (incidents is above delivery;
    read when first needed, once every table is mapped)."""
    (key,) = cast(Table, PolicyRun.__table__).c.incident_id.foreign_keys
    return key.column.table


async def start_runs(session: AsyncSession, events: Sequence[Any], *, now: datetime) -> None:
    """A run for each `started` or `reopened` incident event whose incident names a policy of
    its team."""
    for event in events:
        if event.trigger_type != "incident_change" or event.event not in OPENING:
            continue
        policy_id = event.payload["data"]["attributes"].get("escalation_policy_id")
        if policy_id is None:
            continue
        policy = await session.scalar(
            select(Policy).where(Policy.id == policy_id, Policy.team_id == event.team_id)
        )
        if policy is None:
            continue
        if event.event == "reopened":
            # The runs of the incident's earlier opening are over (it was resolved).
            for run in await session.scalars(
                select(PolicyRun).where(PolicyRun.incident_id == event.subject_id)
            ):
                run.next_at = None
        _new_run(session, event.team_id, event.subject_id, policy, event.id, now=now, hops=0)
    await session.flush()


def _new_run(
    session: AsyncSession,
    team_id: int,
    incident_id: int,
    policy: Policy,
    event_id: int,
    *,
    now: datetime,
    hops: int,
) -> None:
    if not policy.steps:
        return  # a silent policy: it collects incidents and tells nobody
    session.add(
        PolicyRun(
            team_id=team_id,
            incident_id=incident_id,
            policy_id=policy.id,
            event_id=event_id,
            next_at=due_after(policy.steps[0], now),
            told=[],
            hops=hops,
            created_at=now,
            updated_at=now,
        )
    )


async def told_of(session: AsyncSession, *, incident_id: int, now: datetime) -> list[Target]:
    """Whom the incident's runs told (they stop now: it is resolved)."""
    runs = list(
        await session.scalars(select(PolicyRun).where(PolicyRun.incident_id == incident_id))
    )
    for run in runs:
        run.next_at, run.updated_at = None, now
    return targets.unique(target for run in runs for target in run.told)


class _Step:
    """One due step of one run, in the claiming transaction."""

    def __init__(
        self,
        session: AsyncSession,
        run: PolicyRun,
        policy: Policy,
        metadata: dict[str, Any],
        incidents: Incidents,
        now: datetime,
    ) -> None:
        self.session, self.run, self.policy = session, run, policy
        self.metadata, self.incidents, self.now = metadata, incidents, now
        self.by = f"Escalation policy {policy.name}"

    async def do(self, step: dict[str, Any]) -> bool:
        """Do the step; whether the run goes on to its next step (False: it moved, or
        ended)."""
        kind = step.get("type")
        if kind == "escalation":
            await self.escalate(step)
        elif kind == "time_branching":
            if in_time_window(step, self.now):
                return await self.act(step)
        elif kind == "metadata_branching":
            if metadata_matches(step, self.metadata):
                return await self.act(step)
        elif kind == "instructions":
            content = instructions_text(step, self.metadata)
            if content.strip():
                await self.incidents.comment(
                    self.session, self.run.incident_id, content=content, by=self.by
                )
        elif kind == "resolve_remove":
            return await self.act({"action_type": "resolve_incident", **step})
        return True

    async def escalate(self, step: dict[str, Any]) -> None:
        run = self.run
        members = step.get("step_members") or []
        ways = await ways_of(self.session, run.team_id, step.get("urgency_id"))
        told = await members_of(
            self.session, run.team_id, members, ways, metadata=self.metadata, now=self.now
        )
        if told:
            await self.session.execute(
                insert(Delivery),
                targets.deliveries_for(run.team_id, run.event_id, told, due=self.now, now=self.now),
            )
        run.told = targets.unique([*run.told, *told])
        for member in members:
            if member.get("type") == "policy" and member.get("id"):
                await self.chain(int(member["id"]))

    async def chain(self, policy_id: int) -> None:
        """Start another policy for the incident beside this run (once per policy)."""
        run = self.run
        if run.hops >= MAX_HOPS:
            log.warning("escalation run %s: too many policies chained; not starting more", run.id)
            return
        policy = await self._policy(policy_id)
        running = await self.session.scalar(
            select(PolicyRun.id).where(
                PolicyRun.incident_id == run.incident_id, PolicyRun.policy_id == policy_id
            )
        )
        if policy is not None and running is None:
            _new_run(
                self.session,
                run.team_id,
                run.incident_id,
                policy,
                run.event_id,
                now=self.now,
                hops=run.hops + 1,
            )

    async def act(self, step: dict[str, Any]) -> bool:
        """A matched branch's action (`action_type`; by default: move to its policy)."""
        action = step.get("action_type") or "escalate_to_policy"
        if action == "resolve_incident":
            await self.incidents.resolve(self.session, self.run.incident_id, by=self.by)
            self.run.next_at = None
            return False
        if action == "remove_incident":
            self.run.next_at = None
            await self.session.flush()
            await self.incidents.remove(self.session, self.run.incident_id)
            self.session.expunge(self.run)  # gone with its incident
            return False
        if action == "do_not_escalate":
            self.run.next_at = None
            return False
        target = step.get("policy_id") or self._policy_from_metadata(step)
        if target is None:
            return True  # a branch to nowhere: go on
        return not await self.move(int(target))

    def _policy_from_metadata(self, step: dict[str, Any]) -> int | None:
        values = self.metadata.get(step.get("policy_metadata_key") or "", [])
        for value in values:
            if str(value).isdigit():
                return int(value)
        return None

    async def _policy(self, policy_id: int) -> Policy | None:
        found: Policy | None = await self.session.scalar(
            select(Policy).where(Policy.id == policy_id, Policy.team_id == self.run.team_id)
        )
        return found

    async def move(self, policy_id: int) -> bool:
        """The run goes on in another policy of the team, from its first step; whether it
        moved (False: no such policy, or too many moves)."""
        run = self.run
        policy = await self._policy(policy_id)
        if policy is None or run.hops >= MAX_HOPS:
            if run.hops >= MAX_HOPS:
                log.warning("escalation run %s: too many policy moves; it stops", run.id)
                run.next_at = None
                return True
            return False
        run.policy_id, run.step, run.round, run.hops = policy.id, 0, 0, run.hops + 1
        run.next_at = due_after(policy.steps[0], self.now) if policy.steps else None
        return True


async def escalate(
    session: AsyncSession, *, now: datetime, limit: int, incidents: Incidents
) -> int:
    """Run the due steps of up to `limit` runs; how many steps ran. Call inside a write
    transaction."""
    runs = await claim_due(session, PolicyRun, PolicyRun.next_at, now=now, limit=limit)
    ran = 0
    table = _incidents()
    for run in runs:
        state = (
            await session.execute(
                select(table.c.acknowledged_at, table.c.resolved_at, table.c["metadata"]).where(
                    table.c.id == run.incident_id
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
        ran += 1
        if step is not None:
            doing = _Step(session, run, policy, dict(state[2] or {}), incidents, now)
            if not await doing.do(step):
                continue  # the run moved to another policy, or ended
        if run.step + 1 < len(steps):
            run.step += 1
            run.next_at = due_after(steps[run.step], now)
        elif run.round < policy.repeat_count:
            run.step, run.round = 0, run.round + 1
            run.next_at = due_after(steps[0], now + timedelta(seconds=policy.repeat_delay))
        elif policy.fallback_policy_id is not None and await _Step(
            session, run, policy, {}, incidents, now
        ).move(policy.fallback_policy_id):
            pass
        else:
            run.next_at = None
    await session.flush()
    return ran
