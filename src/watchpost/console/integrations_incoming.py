"""/integrations/incoming/{id}: an incoming webhook's page in the console (listed with the
PagerDuty integrations on /integrations, console/integrations.py): its receiving URL, how a
request is matched with an example request (a curl command) that would start an incident
under its rules, its rules and the last request received; and its confirmed delete, through
incoming/service.py with an audit entry. Its create and edit form:
integrations_incoming_form.py."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.auth import Viewer, read_db
from watchpost.console.integrations import INCOMING, NOTICES, SECTION, _delete
from watchpost.console.integrations_example import curl_for
from watchpost.console.integrations_rules import RULE_TYPE_CHOICES, RULE_WORDS
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import render
from watchpost.incoming import schemas as incoming_schemas
from watchpost.incoming import service as incoming
from watchpost.incoming.endpoints import public_base
from watchpost.incoming.models import IncomingWebhook
from watchpost.incoming.receive_endpoints import METHODS as RECEIVE_METHODS
from watchpost.people.roles import Action
from watchpost.policies.models import Policy
from watchpost.validation import object_id

router = console_router()


async def _find_incoming(db: AsyncSession, who: Viewer, row_id: str) -> IncomingWebhook:
    return await incoming.get(
        db, team_id=who.team_id, object_id=object_id(row_id, incoming_schemas.TYPE)
    )


@router.get(INCOMING + "/{row_id}")
async def incoming_page(request: Request, who: Signed, row_id: str) -> Response:
    db = await read_db(request, who, Action.READ)
    row = await _find_incoming(db, who, row_id)
    url = incoming.render(row, who.team_name, public_base(request, request.app.state.ctx))[
        "attributes"
    ]["url"]
    curl, note = await curl_for(url, incoming.shared_attributes(row))
    policy = None
    if row.policy_id is not None:
        found = await db.get(Policy, row.policy_id)
        policy = found.name if found is not None and found.team_id == who.team_id else None
    return render(
        request,
        "integration_incoming.html",
        viewer=who,
        section=SECTION,
        row=row,
        url=url,
        curl=curl,
        note=note,
        methods=RECEIVE_METHODS,
        policy=policy,
        rule_words=RULE_WORDS,
        rule_types=dict(RULE_TYPE_CHOICES),
        rules={kind: getattr(row, f"{kind}_rules") for kind in RULE_WORDS},
        notice=NOTICES.get(request.query_params.get("done", "")),
    )


@router.post(INCOMING + "/{row_id}/delete")
async def delete_incoming(request: Request, who: Signed, row_id: str) -> Response:
    now = request.app.state.ctx.clock.now()

    async def remove(db: AsyncSession, row: IncomingWebhook) -> None:
        await incoming.remove(db, row, now)

    return await _delete(request, who, INCOMING, row_id, _find_incoming, remove)
