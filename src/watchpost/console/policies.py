"""/policies: the team's escalation policies, each in words ("At once, e-mail whoever is on
call; 15 min later, e-mail the whole team; then repeat 3 times") with the monitors and
heartbeats that use it; its page; its form with the steps editor (policies_steps.py); its
deletion after a confirmation.

The steps editor works without JavaScript: "Add a step", "Remove", "Move up" and "Move down"
are submit buttons of the form (`op`) that show it again with the rows changed and every
typed value kept; nothing is stored until "Save". The body is the one the API would receive,
checked and stored by the API's service (policies/service.py), with an audit entry. Reading
needs Action.READ, changing Action.EDIT; another team's policy is a 404.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console import policies_choices
from watchpost.console import policies_steps as steps_kit
from watchpost.console.account import audit
from watchpost.console.auth import Viewer, permitted_form, read_db, write_db
from watchpost.console.confirming import Asking, audited, delete_confirmed
from watchpost.console.form_kit import stored_or_again
from watchpost.console.pickers import find_text
from watchpost.console.query_numbers import number
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import render
from watchpost.errors import InvalidRequest
from watchpost.heartbeats.models import Heartbeat
from watchpost.listing import PageRequest
from watchpost.monitors.models import Monitor
from watchpost.oncall.models import OnCallCalendar
from watchpost.people.roles import Action
from watchpost.policies import service
from watchpost.policies.models import Policy, PolicyGroup
from watchpost.policies.schemas import POLICY_NOT_NULL, PolicyCreate, PolicyUpdate
from watchpost.problems import accepted, checked
from watchpost.teams.service import Principal
from watchpost.validation import object_id

router = console_router()
PER_PAGE: Final = 50
USERS_SHOWN: Final = 5
"""Monitors (and heartbeats) named on a policy's line; the rest are counted."""


def principal(who: Viewer) -> Principal:
    """The signed-in person as the domain's caller: their team (no token)."""
    return Principal(team_id=who.team_id, team_name=who.team_name, token_id=0)


async def users_of(
    db: AsyncSession, team_id: int, policy_ids: list[int]
) -> dict[int, dict[str, Any]]:
    """For each policy: the first monitors and heartbeats naming it (kind, id, name) and how
    many name it in all. Two queries a kind, whatever the number of policies."""
    found: dict[int, dict[str, Any]] = defaultdict(lambda: {"shown": [], "total": 0})
    if not policy_ids:
        return found
    kinds = (
        ("monitor", Monitor, func.coalesce(Monitor.pronounceable_name, Monitor.url)),
        ("heartbeat", Heartbeat, Heartbeat.name),
    )
    for kind, model, name in kinds:
        where = (model.team_id == team_id, model.policy_id.in_(policy_ids))
        counted = select(model.policy_id, func.count()).where(*where).group_by(model.policy_id)
        for policy_id, total in await db.execute(counted):
            found[policy_id]["total"] += total
        rank = func.row_number().over(partition_by=model.policy_id, order_by=model.id)
        ranked = select(model.policy_id, model.id, name.label("name"), rank.label("rank")).where(
            *where
        )
        inner = ranked.subquery()
        firsts = select(inner.c.policy_id, inner.c.id, inner.c.name).where(
            inner.c.rank <= USERS_SHOWN
        )
        for policy_id, row_id, label in await db.execute(firsts.order_by(inner.c.id)):
            found[policy_id]["shown"].append((kind, row_id, label))
    return found


@router.get("/policies")
async def policy_list(request: Request, who: Signed) -> Response:
    db = await read_db(request, who, Action.READ)
    asked = number(request.query_params.get("page"), 1, 100_000)
    paging = PageRequest(page=asked, per_page=PER_PAGE, base_url="/policies", other_params=())
    page = await service.page(db, principal(who), paging)
    shown = list(page.data)
    all_steps = [step for policy in shown for step in policy.steps or []]
    fallbacks = [p.fallback_policy_id for p in shown if p.fallback_policy_id is not None]
    found = await steps_kit.names(db, who.team_id, all_steps, also=fallbacks)
    used = await users_of(db, who.team_id, [policy.id for policy in shown])
    rows = [(p, steps_kit.describe(p, found), used[p.id]) for p in shown]
    return render(
        request,
        "policy_list.html",
        viewer=who,
        section="policies",
        title="Escalation policies",
        rows=rows,
        page_number=asked,
        has_next=page.links.get("next") is not None,
        may_edit=who.may(Action.EDIT),
    )


async def _policy(db: AsyncSession, who: Viewer, policy_id: str) -> Policy:
    return await service.get(db, team_id=who.team_id, object_id=object_id(policy_id, "policy"))


@router.get("/policies/new")
async def new_policy(request: Request, who: Signed) -> Response:
    db = await read_db(request, who, Action.EDIT)
    values = {"name": "", "repeat_count": "0", "repeat_delay": "0"}
    values |= {"policy_group_id": "", "fallback_policy_id": ""}
    rows = [steps_kit.blank_row("escalation")]
    find = find_text(request.query_params.get("find"))
    return await _form(request, who, db, None, values, rows, find=find)


async def _form(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    policy: Policy | None,
    values: dict[str, str],
    rows: list[steps_kit.Row],
    *,
    errors: dict[str, str] | None = None,
    status: int = 200,
    find: str = "",
) -> Response:
    found, lists = await policies_choices.choices(db, who.team_id, rows, values, find)
    groups = await db.execute(
        select(PolicyGroup.id, PolicyGroup.name)
        .where(PolicyGroup.team_id == who.team_id)
        .order_by(PolicyGroup.name, PolicyGroup.id)
        .limit(steps_kit.MAX_CHOICES)
    )
    default = await db.scalar(
        select(OnCallCalendar.id).where(OnCallCalendar.default_of_team_id == who.team_id)
    )
    ticked = {item for row in rows for item in row["on_call"]}
    calendar_choices = [(steps_kit.DEFAULT_CALENDAR, "The team's default calendar")] + [
        (key, name)
        for key, name in found.calendars.items()
        if key != str(default) or key in ticked  # the default by its id: only if stored so
    ]
    others = {
        key: name for key, name in found.policies.items() if policy is None or key != str(policy.id)
    }
    # A user named by e-mail in a stored step is ticked under their id's box.
    for row in rows:
        row["users"] = [
            found.emails.get(item[len("email:") :], item) if item.startswith("email:") else item
            for item in row["users"]
        ]
    return render(
        request,
        "policy_form.html",
        status=422 if errors else status,
        viewer=who,
        section="policies",
        title="New escalation policy" if policy is None else f"Edit {policy.name}",
        policy=policy,
        action="/policies/new" if policy is None else f"/policies/{policy.id}/edit",
        back="/policies" if policy is None else f"/policies/{policy.id}",
        values=values,
        rows=rows,
        names=found,
        calendar_choices=calendar_choices,
        urgencies=[
            (key, f"{name} ({', '.join(ways) or 'nobody is told'})")
            for key, (name, ways) in found.urgencies.items()
        ],
        other_policies=others,
        groups=[(str(gid), name) for gid, name in groups],
        step_types=steps_kit.STEP_TYPES,
        type_words=steps_kit.TYPE_WORDS,
        days=steps_kit.DAYS,
        branch_actions=steps_kit.BRANCH_ACTIONS,
        end_actions=steps_kit.END_ACTIONS,
        default_calendar=steps_kit.DEFAULT_CALENDAR,
        errors=errors or {},
        find=find,
        cut=[(words, picked.note) for words, picked in lists if picked.cut],
    )


def _values_of(form: Any) -> dict[str, str]:
    return {name: str(form.get(name) or "") for name in steps_kit.TOP_FIELDS}


def _body(values: dict[str, str], rows: list[steps_kit.Row], *, creating: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"name": " ".join(values["name"].split())}
    count = values["repeat_count"].strip() or "0"
    body["repeat_count"] = int(count) if count.isascii() and count.isdigit() else count
    delay = steps_kit.seconds_of(values["repeat_delay"])
    body["repeat_delay"] = 0 if delay is None else delay
    for name in ("policy_group_id", "fallback_policy_id"):
        text = values[name].strip()
        if text:
            body[name] = int(text) if text.isascii() and text.isdigit() else text
        elif not creating:
            body[name] = None
    body["steps"] = [steps_kit.step_of(row) for row in rows]
    return body


async def _save(request: Request, who: Viewer, policy_id: str | None) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    values = _values_of(form)
    rows = steps_kit.rows_posted(form)
    op = str(form.get("op") or "save")
    find = find_text(form.get("find"))
    ctx = request.app.state.ctx
    db = await write_db(request)
    if op != "save":  # an editing button: the form again, nothing stored
        async with db.begin():
            policy = None if policy_id is None else await _policy(db, who, policy_id)
            rows = steps_kit.moved(rows, op, str(form.get("new_step_type") or "escalation"))
            return await _form(request, who, db, policy, values, rows, find=find)
    now = ctx.clock.now()
    caller = principal(who)

    async def store(db: AsyncSession) -> str:
        policy = None if policy_id is None else await _policy(db, who, policy_id)
        body = _body(values, rows, creating=policy is None)
        if policy is None:
            data = accepted(*checked(PolicyCreate, body))
            policy = await service.make(db, caller, ctx, data)
            action = "policy.created"
        else:
            update = accepted(*checked(PolicyUpdate, body, not_null=POLICY_NOT_NULL))
            policy = await service.change(db, caller, policy, ctx, update)
            action = "policy.updated"
        await audit(db, request, who, action, now, ("policy", policy.id, policy.name))
        return f"/policies/{policy.id}"

    async def again(db: AsyncSession, exc: InvalidRequest) -> Response:
        errors = steps_kit.step_errors(exc.problems, len(rows))
        policy = None if policy_id is None else await _policy(db, who, policy_id)
        return await _form(request, who, db, policy, values, rows, errors=errors, find=find)

    return await stored_or_again(request, store, again)


@router.post("/policies/new")
async def create_policy(request: Request, who: Signed) -> Response:
    return await _save(request, who, None)


@router.get("/policies/{policy_id}/edit")
async def edit_policy(request: Request, who: Signed, policy_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    policy = await _policy(db, who, policy_id)
    values = {
        "name": policy.name,
        "repeat_count": str(policy.repeat_count),
        "repeat_delay": steps_kit._minutes(policy.repeat_delay) or "0",
        "policy_group_id": "" if policy.policy_group_id is None else str(policy.policy_group_id),
        "fallback_policy_id": (
            "" if policy.fallback_policy_id is None else str(policy.fallback_policy_id)
        ),
    }
    rows = [steps_kit.row_of(step) for step in policy.steps or []]
    find = find_text(request.query_params.get("find"))
    return await _form(request, who, db, policy, values, rows, find=find)


@router.post("/policies/{policy_id}/edit")
async def update_policy(request: Request, who: Signed, policy_id: str) -> Response:
    return await _save(request, who, policy_id)


@router.post("/policies/{policy_id}/delete")
async def delete_policy(request: Request, who: Signed, policy_id: str) -> Response:
    return await delete_confirmed(
        request,
        who,
        "policies",
        find=lambda db: _policy(db, who, policy_id),
        ask=lambda policy: Asking(
            question="Delete an escalation policy",
            detail=(
                f"Delete the escalation policy {policy.name}? The monitors and heartbeats "
                "using it will tell nobody by a policy; its running escalations stop."
            ),
            action=f"/policies/{policy.id}/delete",
            button="Delete the policy",
            back=f"/policies/{policy.id}",
        ),
        remove=audited(request, who, "policy", service.remove),
        done="/policies?done=deleted",
    )


@router.get("/policies/{policy_id}")
async def policy_page(request: Request, who: Signed, policy_id: str) -> Response:
    db = await read_db(request, who, Action.READ)
    policy = await _policy(db, who, policy_id)
    fallbacks = [] if policy.fallback_policy_id is None else [policy.fallback_policy_id]
    found = await steps_kit.names(db, who.team_id, policy.steps or [], also=fallbacks)
    used = (await users_of(db, who.team_id, [policy.id]))[policy.id]
    group = None
    if policy.policy_group_id is not None:
        group = await db.scalar(
            select(PolicyGroup.name).where(
                PolicyGroup.team_id == who.team_id, PolicyGroup.id == policy.policy_group_id
            )
        )
    words = [
        steps_kit.step_words(step, found, first=i == 0) for i, step in enumerate(policy.steps or [])
    ]
    return render(
        request,
        "policy.html",
        viewer=who,
        section="policies",
        title=policy.name,
        policy=policy,
        summary=steps_kit.describe(policy, found),
        step_lines=[
            (step, text[:1].upper() + text[1:])
            for step, text in zip(policy.steps or [], words, strict=True)
        ],
        type_words=steps_kit.TYPE_WORDS,
        used=used,
        group=group,
        duration=steps_kit.duration,
        may_edit=who.may(Action.EDIT),
    )
