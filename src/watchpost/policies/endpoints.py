"""Routes of /api/v3/policies (escalation policies)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from watchpost.errors import InvalidRequest
from watchpost.http.body import JsonObject
from watchpost.http.crud import Finder, Routes
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import Resource, listing, resource, single
from watchpost.http.pagination import Paging
from watchpost.policies import schemas, service
from watchpost.policies.models import Policy
from watchpost.problems import accepted, checked, parse

router = APIRouter(prefix="/api/v3/policies", tags=["escalation policies"])
policy_routes = Routes(router, schemas.PolicyAttributes)
_find = Finder(service.get_policy, service.POLICY, "policy_id")

ABOUT = (
    "Steps run in order for an incident that names the policy (`policy_id` of a report) "
    "until it is acknowledged or resolved: an `escalation` step tells its `step_members` "
    "(`entire_team`, a `user` by id or email, a `webhook`, `all_webhook_integrations`, a "
    "`notification_channel`, `all_notification_channels`) `wait_before` seconds after the "
    "step before; then the whole policy repeats `repeat_count` times after `repeat_delay`. "
    "Whoever was told hears of the resolution. Other step and member types are stored and "
    "shown but not run yet."
)


def _policy(policy: Policy, team_name: str) -> Resource:
    return resource(service.POLICY, policy.id, service.policy_attributes(policy, team_name))


def _team_name(body: JsonObject, team_name: str) -> None:
    sent = body.get("team_name")
    if isinstance(sent, str) and sent.strip() != team_name:
        raise InvalidRequest(
            [("team_name", f"team_name must be the API token's team ({team_name!r})")]
        )


@policy_routes.create(
    "", summary="Create an escalation policy", description=ABOUT, body=schemas.PolicyCreate
)
async def create_policy(body: JsonObject, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    data = parse(schemas.PolicyCreate, body)
    _team_name(body, caller.team_name)
    async with db.begin():
        policy = await service.create_policy(
            db, team_id=caller.team_id, data=data, now=ctx.clock.now()
        )
    return single(_policy(policy, caller.team_name), status=201)


@policy_routes.list("", summary="List escalation policies")
async def list_policies(caller: Caller, db: ReadDb, paging: Paging) -> Response:
    page = await service.list_policies(db, team_id=caller.team_id, paging=paging)
    return listing((_policy(row, caller.team_name) for row in page.data), page.links)


@policy_routes.get("/{policy_id}", summary="Get an escalation policy")
async def get_policy(policy_id: str, caller: Caller, db: ReadDb) -> Response:
    return single(_policy(await _find(db, caller, policy_id), caller.team_name))


@policy_routes.update(
    "/{policy_id}",
    summary="Update an escalation policy",
    description="The sent fields change; `steps` replaces every step.",
    body=schemas.PolicyUpdate,
    not_null=schemas.POLICY_NOT_NULL,
)
async def update_policy(
    policy_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    async with db.begin():
        policy = await _find(db, caller, policy_id)
        data = accepted(*checked(schemas.PolicyUpdate, body, not_null=schemas.POLICY_NOT_NULL))
        _team_name(body, caller.team_name)
        await service.update_policy(db, policy=policy, data=data, now=ctx.clock.now())
    return single(_policy(policy, caller.team_name))


@policy_routes.delete("/{policy_id}", summary="Delete an escalation policy")
async def delete_policy(policy_id: str, caller: Caller, db: WriteDb) -> Response:
    return await _find.delete(
        db, caller, policy_id, lambda policy: service.delete_policy(db, policy=policy)
    )


routers = (router,)
