"""/locations/{id}: one location's page (its facts; for the team's own, its probe tokens),
its deletion, and its tokens' creation and revocation.

A team manages only its own locations' tokens (the operator's with `watchpost probe-token`).
A new token is on the answer page once, with the exact `watchpost probe` command that runs
an agent for it against this server, and never again (only its hash is kept). Writes need
Action.EDIT and are audited; another team's location is a 404, the operator's refused (403).
"""

from __future__ import annotations

import shlex
from typing import Any, Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.agent.wire import server_problem
from watchpost.console.account import audit
from watchpost.console.auth import Viewer, permitted_form, write_db
from watchpost.console.confirming import confirm_page, confirmed
from watchpost.console.locations import REGION_WORDS, SECTION, STATUS_WORDS, kind_of, own
from watchpost.console.notices import done_query
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import render
from watchpost.errors import Conflict
from watchpost.heartbeats.endpoints import public_base
from watchpost.http.deps import request_sessions
from watchpost.locations import tokens
from watchpost.locations.models import Location, ProbeToken
from watchpost.people.roles import Action
from watchpost.probing import service
from watchpost.validation import object_id

router = console_router()
NAME_LENGTH: Final = 255


def probe_command(base: str, token: str) -> str:
    """The command that runs an agent of the token's location against this server (with
    --insecure-http when the server's address is plain http to another machine)."""
    words = ["watchpost", "probe", "--server", base, "--token", token]
    if server_problem(base, insecure_http=False) and not server_problem(base, insecure_http=True):
        words.append("--insecure-http")
    return shlex.join(words)


def token_label(token: ProbeToken) -> str:
    return f"{token.prefix}…" + (f" ({token.name})" if token.name else "")


async def _page(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    location: Location,
    *,
    status: int = 200,
    **extra: Any,
) -> Response:
    mine = location.team_id == who.team_id
    rows = await tokens.list_tokens(db, location_id=location.id) if mine else []
    named = await service.monitors_naming(db, location.name) if mine else 0
    return render(
        request,
        "location.html",
        status=status,
        viewer=who,
        section=SECTION,
        title=f"Location {location.name}",
        location=location,
        kind=kind_of(location, who.team_id),
        state=service.status(location),
        status_words=STATUS_WORDS,
        region_words=REGION_WORDS,
        mine=mine,
        named=named,
        tokens=[token for token, _ in rows],
        errors=extra.pop("errors", {}),
        typed=extra.pop("typed", ""),
        **extra,
    )


@router.get("/locations/{location_id}")
async def location_page(request: Request, who: Signed, location_id: str) -> Response:
    db = await request_sessions(request).read()
    found = object_id(location_id, service.LOCATION)
    location = await service.get_for_team(db, team_id=who.team_id, location_id=found)
    return await _page(request, who, db, location)


@router.post("/locations/{location_id}/delete")
async def delete_location(request: Request, who: Signed, location_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    found = object_id(location_id, service.LOCATION)
    now = request.app.state.ctx.clock.now()
    page = f"/locations/{found}"
    db = await write_db(request)
    try:
        async with db.begin():
            location = await own(db, who, found)
            name = location.name
            if not confirmed(form):
                return confirm_page(
                    request,
                    who,
                    section=SECTION,
                    question=f"Delete the location “{name}”?",
                    detail="Its probe tokens go with it: its agents are refused from now on.",
                    action=f"{page}/delete",
                    button="Delete location",
                    back=page,
                )
            await service.delete_location(db, location, now=now)
            await audit(db, request, who, "location.deleted", now, (service.LOCATION, found, name))
    except Conflict as exc:
        async with db.begin():
            location = await own(db, who, found)
            return await _page(request, who, db, location, status=409, refused=exc.message)
    return RedirectResponse(f"/locations?{done_query('deleted')}", status_code=303)


@router.post("/locations/{location_id}/tokens")
async def create_token(request: Request, who: Signed, location_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    found = object_id(location_id, service.LOCATION)
    name = " ".join(str(form.get("name", "")).split())
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        location = await own(db, who, found)
        if len(name) > NAME_LENGTH:
            return await _page(
                request,
                who,
                db,
                location,
                status=422,
                errors={"name": "Use a shorter name"},
                typed=name[:NAME_LENGTH],
            )
        row, token = await tokens.create_token_row(db, location=location, name=name, now=now)
        await audit(
            db,
            request,
            who,
            "probe_token.created",
            now,
            (tokens.PROBE_TOKEN, row.id, token_label(row)),
            {"location": location.name},
        )
        base = public_base(request, request.app.state.ctx)
        return await _page(
            request,
            who,
            db,
            location,
            created=token,
            created_label=token_label(row),
            command=probe_command(base, token),
        )


@router.post("/locations/{location_id}/tokens/{token_id}/revoke")
async def revoke_token(request: Request, who: Signed, location_id: str, token_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    found = object_id(location_id, service.LOCATION)
    page = f"/locations/{found}"
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        location = await own(db, who, found)
        row = await tokens.get_token(
            db, location_id=location.id, token_id=object_id(token_id, tokens.PROBE_TOKEN)
        )
        if row.revoked_at is not None:
            return RedirectResponse(page, status_code=303)
        label = token_label(row)
        if not confirmed(form):
            return confirm_page(
                request,
                who,
                section=SECTION,
                question="Revoke a probe token",
                detail=f"Revoke the probe token {label}? Agents using it are refused from now on.",
                action=f"{page}/tokens/{row.id}/revoke",
                button="Revoke the token",
                back=page,
            )
        await tokens.revoke_token(db, row, now=now)
        await audit(
            db,
            request,
            who,
            "probe_token.revoked",
            now,
            (tokens.PROBE_TOKEN, row.id, label),
            {"location": location.name},
        )
    return RedirectResponse(page, status_code=303)
