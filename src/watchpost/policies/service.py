"""What escalation policies do as objects: create, read, change, delete. No HTTP here; the
functions follow the plain collection's convention (http/collection.py).

A step member that names a user, a webhook or a notification channel must name one of the
team's (a 422 naming the member otherwise): a policy that would tell nobody is found at
once, not during an outage. So must a step's `urgency_id` (an urgency) and the policy's
`policy_group_id` (a policy group).
"""

from __future__ import annotations

import secrets
from typing import Any, Final

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels.models import NotificationChannel
from watchpost.context import AppContext
from watchpost.db.base import Base
from watchpost.errors import InvalidRequest, Problem
from watchpost.listing import Resource, resource
from watchpost.oncall.models import OnCallCalendar
from watchpost.pagerduty.models import PagerDutyIntegration
from watchpost.plain_groups import reference_problems
from watchpost.plain_objects import TeamObjects, added
from watchpost.policies.models import Policy, PolicyGroup
from watchpost.policies.schemas import PolicyCreate, PolicyStep, PolicyUpdate, stored_steps
from watchpost.problems import team_name_problems
from watchpost.teams.models import User, team_users
from watchpost.teams.service import Principal
from watchpost.urgencies.models import Urgency
from watchpost.webhooks.models import OutgoingWebhook

TYPE: Final = "policy"
_OBJECTS: Final = TeamObjects(Policy, TYPE)
page, get = _OBJECTS.page, _OBJECTS.get
_NAMED: Final[dict[str, Any]] = {
    "webhook": OutgoingWebhook,
    "notification_channel": NotificationChannel,
    "policy": Policy,
    "pagerduty_integration": PagerDutyIntegration,
}


def render(policy: Policy, team_name: str) -> Resource:
    return resource(TYPE, policy.id, _attributes(policy, team_name))


def _attributes(policy: Policy, team_name: str) -> dict[str, Any]:
    return {
        "name": policy.name,
        "repeat_count": policy.repeat_count,
        "repeat_delay": policy.repeat_delay,
        "incident_token": policy.incident_token,
        "policy_group_id": policy.policy_group_id,
        "fallback_policy_id": policy.fallback_policy_id,
        "team_name": team_name,
        "steps": policy.steps,
    }


async def _step_problems(
    session: AsyncSession, team_id: int, steps: list[PolicyStep]
) -> list[Problem]:
    problems: list[Problem] = []
    for s, step in enumerate(steps):
        if step.urgency_id is not None:
            where = f"steps[{s}].urgency_id"
            if await reference_problems(
                session, Urgency, where, team_id=team_id, ref=step.urgency_id
            ):
                problems.append((where, f"{where}: must name an urgency of this team"))
        for m, member in enumerate(step.step_members or []):
            where = f"steps[{s}].step_members[{m}]"
            if member.type == "user":
                if member.id is None and member.email is None:
                    problems.append((where, f"{where}: a user member needs an id or an email"))
                    continue
                found = await session.scalar(
                    team_users(team_id)
                    .with_only_columns(User.id)
                    .where(
                        User.id == member.id
                        if member.id is not None
                        else func.lower(User.email) == (member.email or "").lower(),
                    )
                )
                if found is None:
                    problems.append((where, f"{where}: no user of this team is named so"))
            elif member.type == "current_on_call" and member.id is not None:
                found = await session.scalar(
                    select(OnCallCalendar.id).where(
                        OnCallCalendar.team_id == team_id, OnCallCalendar.id == member.id
                    )
                )
                if found is None:
                    problems.append(
                        (where, f"{where}: id must name an on-call calendar of this team")
                    )
            elif member.type in _NAMED:
                model = _NAMED[member.type]
                found = None
                if member.id is not None:
                    found = await session.scalar(
                        select(model.id).where(model.team_id == team_id, model.id == member.id)
                    )
                if found is None:
                    problems.append(
                        (
                            where,
                            f"{where}: id must name a {member.type.replace('_', ' ')} of this team",
                        )
                    )
    return problems


async def _is_policy(session: AsyncSession, team_id: int, policy_id: int) -> bool:
    found = await session.scalar(
        select(Policy.id).where(Policy.team_id == team_id, Policy.id == policy_id)
    )
    return found is not None


async def _branch_problems(
    session: AsyncSession, team_id: int, steps: list[PolicyStep]
) -> list[Problem]:
    """A branching step's `policy_id` must name a policy of the team."""
    problems: list[Problem] = []
    for s, step in enumerate(steps):
        if step.policy_id is not None and not await _is_policy(session, team_id, step.policy_id):
            where = f"steps[{s}].policy_id"
            problems.append((where, f"{where} must name an escalation policy of this team"))
    return problems


async def _fallback_problems(
    session: AsyncSession, team_id: int, fallback: int | None
) -> list[Problem]:
    if fallback is None or await _is_policy(session, team_id, fallback):
        return []
    return [
        ("fallback_policy_id", "fallback_policy_id must name an escalation policy of this team")
    ]


async def _checked_steps(
    session: AsyncSession, team_id: int, steps: list[PolicyStep]
) -> list[dict[str, Any]]:
    problems = await _step_problems(session, team_id, steps)
    problems += await _branch_problems(session, team_id, steps)
    if problems:
        raise InvalidRequest(problems)
    return stored_steps(steps)


async def _check(session: AsyncSession, data: Any, caller: Principal) -> None:
    """A team_name sent must be the token's (as the hosted API's global tokens need it); a
    policy_group_id sent must name a policy group of the team, a fallback_policy_id a policy."""
    problems = team_name_problems(data.team_name, caller.team_name)
    if "fallback_policy_id" in data.model_fields_set:
        problems += await _fallback_problems(session, caller.team_id, data.fallback_policy_id)
    if "policy_group_id" in data.model_fields_set:
        problems += await reference_problems(
            session,
            PolicyGroup,
            "policy_group_id",
            team_id=caller.team_id,
            ref=data.policy_group_id,
        )
    if problems:
        raise InvalidRequest(problems)


async def make(db: AsyncSession, caller: Principal, ctx: AppContext, data: PolicyCreate) -> Policy:
    await _check(db, data, caller)
    now = ctx.clock.now()
    policy = Policy(
        team_id=caller.team_id,
        name=data.name,
        repeat_count=data.repeat_count or 0,
        repeat_delay=data.repeat_delay or 0,
        incident_token=secrets.token_urlsafe(18),
        policy_group_id=data.policy_group_id,
        fallback_policy_id=data.fallback_policy_id,
        steps=await _checked_steps(db, caller.team_id, data.steps or []),
    )
    return await added(db, policy, now)


async def change(
    db: AsyncSession, caller: Principal, policy: Policy, ctx: AppContext, data: PolicyUpdate
) -> Policy:
    """The sent fields change; `steps` replaces them all."""
    await _check(db, data, caller)
    sent = data.model_fields_set
    for name in ("name", "repeat_count", "repeat_delay", "policy_group_id", "fallback_policy_id"):
        if name in sent:
            setattr(policy, name, getattr(data, name))
    if "steps" in sent:
        policy.steps = await _checked_steps(db, policy.team_id, data.steps or [])
    policy.updated_at = ctx.clock.now()
    await db.flush()
    return policy


async def remove(db: AsyncSession, policy: Policy) -> None:
    """Delete the policy; its runs stop with it, and what named it (monitors' and heartbeats'
    policy_id and expiration_policy_id, incidents, other policies' fallback) names none. A branching step that names it stays:
    at run time a branch to no policy goes on with the next step."""
    for table in Base.metadata.sorted_tables:
        for column in ("policy_id", "expiration_policy_id"):
            if column in table.c and table.name != "policy_runs":
                await db.execute(
                    update(table)
                    .where(table.c.team_id == policy.team_id, table.c[column] == policy.id)
                    .values({column: None})
                )
    await db.execute(
        update(Policy)
        .where(Policy.team_id == policy.team_id, Policy.fallback_policy_id == policy.id)
        .values(fallback_policy_id=None)
    )
    await db.delete(policy)
    await db.flush()
