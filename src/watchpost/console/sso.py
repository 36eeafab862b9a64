"""Single sign-on: `/login/sso` sends the person to the OpenID provider, `/login/sso/callback`
brings them back signed in (console/oidc.py checks everything the provider says).

What the sign-in needs to remember between the two (state, nonce, PKCE verifier) travels in a
short-lived cookie sealed with the server's key (crypto.SecretBox), SameSite=Lax so that the
provider's redirect back brings it. A verified e-mail of a domain in WATCHPOST_OIDC_TEAMS
makes (or finds) the person and gives them the teams and roles named there; an existing
membership keeps its role (an admin made an owner in the console is not demoted by SSO).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from watchpost.console.auth import safe_next, write_db
from watchpost.console.errors import ConsoleRoute, error_page
from watchpost.console.login import begin_session
from watchpost.context import AppContext
from watchpost.people import accounts
from watchpost.teams.models import Membership, User
from watchpost.teams.service import get_or_create_team

if TYPE_CHECKING:
    from watchpost.console.oidc import OidcClient

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)
PENDING: Final = "watchpost_sso"
CALLBACK: Final = "/login/sso/callback"


def client_of(request: Request) -> OidcClient | None:
    """The app's client (discovery and keys cached, kept on the app with the context it was
    made for), None when SSO is off. console/oidc.py and its libraries (httpx, joserfc) load
    here, at the first sign-in through SSO: a server without SSO never loads them."""
    from watchpost.console.oidc import OidcClient

    ctx: AppContext = request.app.state.ctx
    kept = getattr(request.app.state, "oidc", None)
    if kept is not None and kept[0] is ctx:
        found: OidcClient | None = kept[1]
        return found
    found = OidcClient.from_settings(ctx.settings, ctx.clock)
    request.app.state.oidc = (ctx, found)
    return found


def _redirect_uri(request: Request) -> str:
    base = request.app.state.ctx.settings.public_base or str(request.base_url).rstrip("/")
    return base + CALLBACK


def _refused(request: Request, message: str) -> Response:
    return error_page(request, 403, "Single sign-on refused", message)


@router.get("/login/sso")
async def start(request: Request) -> Response:
    ctx = request.app.state.ctx
    client = client_of(request)
    if client is None:
        return error_page(request, 404, "Not found", "Single sign-on is not set up here.")
    from watchpost.console.oidc import OidcError

    try:
        await client.discover()
    except OidcError as exc:
        return error_page(request, 502, "Single sign-on unavailable", str(exc))
    url, pending = client.begin(_redirect_uri(request))
    response = RedirectResponse(url, status_code=303)
    sealed = ctx.box.encrypt(pending.to_json() + "\n" + safe_next(request.query_params.get("next")))
    response.set_cookie(
        PENDING,
        sealed,
        max_age=600,
        path="/login/sso",
        httponly=True,
        samesite="lax",
        secure=_redirect_uri(request).startswith("https://"),
    )
    return response


@router.get(CALLBACK)
async def callback(request: Request) -> Response:
    ctx = request.app.state.ctx
    client = client_of(request)
    if client is None:
        return error_page(request, 404, "Not found", "Single sign-on is not set up here.")
    from watchpost.console.oidc import OidcError, OidcPending, callback_refusal, team_role_for

    query = request.query_params
    try:
        if "error" in query:
            raise callback_refusal(query["error"][:200])
        sealed = request.cookies.get(PENDING, "")
        try:
            text = ctx.box.decrypt(sealed) if sealed else ""
        except ValueError:
            text = ""
        if not text:
            raise OidcError("This sign-in was not started here, or took too long. Try again.")
        pending_json, _, next_path = text.partition("\n")
        identity = await client.finish(
            code=query.get("code", "")[:2000],
            state=query.get("state", "")[:500],
            pending=OidcPending.from_json(pending_json),
            redirect_uri=_redirect_uri(request),
        )
        grants = team_role_for(
            identity.email, ctx.settings.oidc_team_map, email_verified=identity.email_verified
        )
    except OidcError as exc:
        response = _refused(request, str(exc))
        response.delete_cookie(PENDING, path="/login/sso")
        return response
    now = ctx.clock.now()
    db = await write_db(request)
    async with db.begin():
        user = await accounts.by_email(db, identity.email)
        if user is None and grants:
            user = User(
                email=accounts.normal_email(identity.email),
                name=(identity.name or identity.email.partition("@")[0])[:255],
                created_at=now,
            )
            db.add(user)
            await db.flush()
        if user is not None:
            for team_name, role in grants:
                team = await get_or_create_team(db, name=team_name, now=now)
                if await accounts.role_in(db, user_id=user.id, team_id=team.id) is None:
                    db.add(Membership(team_id=team.id, user_id=user.id, role=role, created_at=now))
            await db.flush()
            has_team = bool(await accounts.teams_of(db, user.id))
    if user is None or not has_team:
        return _refused(
            request, f"{identity.email} may not sign in here: its domain is not given a team."
        )
    response = await begin_session(
        request, user, second_factor_done=False, via="single sign-on", next_path=next_path
    )
    response.delete_cookie(PENDING, path="/login/sso")
    return response
