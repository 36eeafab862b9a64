"""/team/tokens: the team's API tokens, for admins: listed by their shown prefix, created
with a name (the token itself is on the answer page once, never again: only its hash is
kept) and revoked (the API refuses it from the next request on)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.audit.service import record_token
from watchpost.console.account import actor
from watchpost.console.auth import Viewer, permitted_form, write_db
from watchpost.console.confirming import confirm_page, confirmed
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import form_page
from watchpost.db.queries import team_object
from watchpost.http.deps import request_sessions
from watchpost.people.roles import Action
from watchpost.teams import service
from watchpost.teams.models import ApiToken
from watchpost.validation import object_id

router = console_router()
NAME_LENGTH = 255


async def _page(
    request: Request,
    who: Viewer,
    db: AsyncSession,
    *,
    errors: dict[str, str] | None = None,
    **extra: object,
) -> Response:
    tokens = await service.team_tokens(db, team_id=who.team_id)
    return form_page(
        request,
        "team_tokens.html",
        who,
        errors=errors,
        section="team",
        tab="tokens",
        tokens=tokens,
        **extra,
    )


@router.get("/team/tokens")
async def tokens_page(request: Request, who: Signed) -> Response:
    who.require(Action.MANAGE_PEOPLE)
    return await _page(request, who, await request_sessions(request).read(), typed="")


@router.post("/team/tokens")
async def create(request: Request, who: Signed) -> Response:
    form = await permitted_form(request, who, Action.MANAGE_PEOPLE)
    name = " ".join(str(form.get("name", "")).split())
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        if not name or len(name) > NAME_LENGTH:
            message = "Name the token (what uses it)" if not name else "Use a shorter name"
            return await _page(request, who, db, errors={"name": message}, typed=name[:NAME_LENGTH])
        row, token = await service.create_team_token(
            db, team_id=who.team_id, now=now, name=name, created_by_id=who.user.id
        )
        await record_token(db, row, action="token.created", actor=actor(request, who), now=now)
        return await _page(request, who, db, created=token, created_name=name, typed="")


@router.post("/team/tokens/{token_id}/revoke")
async def revoke(request: Request, who: Signed, token_id: str) -> Response:
    form = await permitted_form(request, who, Action.MANAGE_PEOPLE)
    now = request.app.state.ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        found = object_id(token_id, "token")
        row = await team_object(db, ApiToken, "token", team_id=who.team_id, object_id=found)
        label = f"{row.prefix}…" + (f" ({row.name})" if row.name else "")
        if row.revoked_at is not None:
            return RedirectResponse("/team/tokens", status_code=303)
        if not confirmed(form):
            return confirm_page(
                request,
                who,
                section="team",
                question="Revoke a token",
                detail=f"Revoke the token {label}? Whatever uses it is refused from now on.",
                action=f"/team/tokens/{token_id}/revoke",
                button="Revoke the token",
                back="/team/tokens",
            )
        await service.revoke_team_token(db, team_id=who.team_id, token_id=row.id, now=now)
        await record_token(db, row, action="token.revoked", actor=actor(request, who), now=now)
    return RedirectResponse("/team/tokens", status_code=303)
