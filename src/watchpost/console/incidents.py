"""`/incidents`: the team's incidents (filters in the URL, newest first, in pages) and each
incident's page: what it is about, what the check saw, its timeline, and Acknowledge,
Resolve, Reopen and a comment for responders and up.

Acting goes through the functions the API's endpoints call (transitions.apply,
comments.reopen, comments.add_comment), with the signed-in person's e-mail where the API
takes `acknowledged_by` / `resolved_by` / `reopened_by` and as the comment's author; each
action is also an audit entry (`incident.acknowledged` …).
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.audit.service import record
from watchpost.console import incident_list
from watchpost.console.account import actor
from watchpost.console.auth import Viewer, permitted_form, write_db
from watchpost.console.incident_timeline import check_facts, timeline
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page, relative, render
from watchpost.errors import InvalidRequest
from watchpost.http.deps import request_sessions
from watchpost.incidents import comments, service
from watchpost.incidents.models import Incident
from watchpost.incidents.rendering import INCIDENT
from watchpost.incidents.schemas import CommentCreate
from watchpost.incidents.transitions import Change, apply
from watchpost.people.roles import Action
from watchpost.problems import parse
from watchpost.validation import object_id

router = console_router()
LIVE: Final = "/console/events"


async def _audit(
    db: AsyncSession, request: Request, who: Viewer, incident: Incident, **entry: Any
) -> None:
    """The audit entry (`action`, `now`, maybe `details`) of what the signed-in person did to
    the incident."""
    await record(
        db,
        team_id=who.team_id,
        actor=actor(request, who),
        subject_type=INCIDENT,
        subject_id=incident.id,
        subject=incident.name,
        **entry,
    )


@router.get("/incidents")
async def incidents(request: Request, who: Signed) -> Response:
    now = request.app.state.ctx.clock.now()
    query = incident_list.read_query(request.query_params, now)
    db = await request_sessions(request).read()
    page = await incident_list.list_page(db, team_id=who.team_id, query=query)
    return render(
        request,
        "incidents.html",
        status=200 if not query.errors else 422,
        viewer=who,
        section="incidents",
        live=LIVE,
        query=query,
        page=page,
        statuses=incident_list.STATUSES,
        periods=incident_list.PERIOD_LABELS,
        page_sizes=incident_list.PAGE_SIZES,
        relative=relative,
    )


async def _incident_page(
    request: Request,
    who: Viewer,
    incident_id: str,
    *,
    errors: dict[str, str] | None = None,
    comment: str = "",
) -> Response:
    db = await request_sessions(request).read()
    incident = await service.get_incident(
        db, team_id=who.team_id, incident_id=object_id(incident_id, INCIDENT)
    )
    names = await incident_list.subject_names(
        db,
        {incident.monitor_id} if incident.monitor_id is not None else set(),
        {incident.heartbeat_id} if incident.heartbeat_id is not None else set(),
    )
    status = incident.status
    return form_page(
        request,
        "incident.html",
        who,
        errors=errors,
        section="incidents",
        live=LIVE,
        incident=incident,
        state_word=incident_list.STATE_WORDS[status],
        state_class=incident_list.STATE_CLASSES[status],
        about=incident_list.about(
            incident.monitor_id, incident.heartbeat_id, incident.collector_target_id, names
        ),
        facts=check_facts(incident),
        timeline=await timeline(db, incident),
        relative=relative,
        comment=comment,
    )


@router.get("/incidents/{incident_id}")
async def incident_page(request: Request, who: Signed, incident_id: str) -> Response:
    return await _incident_page(request, who, incident_id)


async def _act(request: Request, who: Viewer, incident_id: str, change: Change) -> Response:
    """Acknowledge, resolve or reopen as the signed-in person, then back to the page."""
    await permitted_form(request, who, Action.RESPOND)
    ctx = request.app.state.ctx
    now = ctx.clock.now()
    iid = object_id(incident_id, INCIDENT)
    db = await write_db(request)
    async with db.begin():
        incident: Incident = await service.get_incident(db, team_id=who.team_id, incident_id=iid)
        if change is Change.REOPENED:
            await comments.reopen(db, incident, by=who.user.email, now=now)
        else:
            await apply(db, incident, change, at=now, by=who.user.email)
        await _audit(db, request, who, incident, action=f"incident.{change.value}", now=now)
    return RedirectResponse(f"/incidents/{iid}", status_code=303)


@router.post("/incidents/{incident_id}/acknowledge")
async def acknowledge(request: Request, who: Signed, incident_id: str) -> Response:
    return await _act(request, who, incident_id, Change.ACKNOWLEDGED)


@router.post("/incidents/{incident_id}/resolve")
async def resolve(request: Request, who: Signed, incident_id: str) -> Response:
    return await _act(request, who, incident_id, Change.RESOLVED)


@router.post("/incidents/{incident_id}/reopen")
async def reopen(request: Request, who: Signed, incident_id: str) -> Response:
    return await _act(request, who, incident_id, Change.REOPENED)


@router.post("/incidents/{incident_id}/comments")
async def comment(request: Request, who: Signed, incident_id: str) -> Response:
    """A comment by the signed-in person; the API's rules for its content (CommentCreate)."""
    form = await permitted_form(request, who, Action.RESPOND)
    content = str(form.get("content", ""))
    try:
        data = parse(CommentCreate, {"content": content})
    except InvalidRequest as exc:
        message = "; ".join(text for _, text in exc.problems)
        return await _incident_page(
            request, who, incident_id, errors={"content": message}, comment=content
        )
    ctx = request.app.state.ctx
    now = ctx.clock.now()
    iid = object_id(incident_id, INCIDENT)
    db = await write_db(request)
    async with db.begin():
        incident = await service.get_incident(db, team_id=who.team_id, incident_id=iid)
        added = await comments.add_comment(
            db,
            incident,
            content=data.content,
            by=who.user.email,
            now=now,
            user_id=who.user.id,
            user_email=who.user.email,
        )
        await _audit(
            db,
            request,
            who,
            incident,
            action="incident.commented",
            now=now,
            details={"comment_id": added.id},
        )
    return RedirectResponse(f"/incidents/{iid}#timeline", status_code=303)
