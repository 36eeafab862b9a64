"""Single sign-on through the console's routes, against the real provider
(tests/console/oidc_provider.py): a verified e-mail of a mapped domain signs in and gets its
team and role; an unverified one, an unmapped domain and a refusal at the provider do not."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from tests.console.oidc_provider import OidcProvider, person
from tests.factories.api import Api
from watchpost.clock import FrozenClock

pytestmark = pytest.mark.filterwarnings("ignore:get_jwt_config:DeprecationWarning")


def _configure(app: FastAPI, provider: OidcProvider, teams: str) -> None:
    client_id, secret = provider.register("http://testserver/login/sso/callback")
    ctx = app.state.ctx
    ctx.clock = FrozenClock(datetime.now(UTC))  # the provider stamps tokens with real time
    ctx.settings.oidc_issuer = provider.issuer
    ctx.settings.oidc_client_id = client_id
    ctx.settings.oidc_client_secret = SecretStr(secret)
    ctx.settings.oidc_teams = teams
    ctx.settings.__dict__.pop("oidc_team_map", None)


async def _sign_in(client: httpx.AsyncClient, provider: OidcProvider, sub: str) -> httpx.Response:
    started = await client.get("/login/sso", params={"next": "/account"})
    assert started.status_code == 303, started.text
    back = provider.authorize(started.headers["location"], sub=sub)
    parts = urlsplit(back)
    return await client.get(f"{parts.path}?{parts.query}")


async def test_a_verified_person_of_a_mapped_domain_signs_in(
    app: FastAPI, client: httpx.AsyncClient, api: Api, oidc_provider: OidcProvider
) -> None:
    _configure(app, oidc_provider, "example.com=acme:responder")
    login = await client.get("/login")
    assert "Sign in with SSO" in login.text
    sub = person(oidc_provider, email="Ada@Example.com", email_verified=True, name="Ada Byron")
    done = await _sign_in(client, oidc_provider, sub)
    assert done.status_code == 303 and done.headers["location"] == "/account"
    account = await client.get("/account")
    assert account.status_code == 200 and "ada@example.com" in account.text
    members = (await api.get("/api/v2/team-members", params={"email": "ada@example.com"})).json()
    assert members["data"]["attributes"]["role"] == "responder"
    assert members["data"]["attributes"]["first_name"] == "Ada"


async def test_unverified_unmapped_and_denied_are_refused(
    app: FastAPI, client: httpx.AsyncClient, oidc_provider: OidcProvider
) -> None:
    _configure(app, oidc_provider, "example.com=acme:viewer")
    unverified = person(oidc_provider, email="eve@example.com", email_verified=False)
    refused = await _sign_in(client, oidc_provider, unverified)
    assert refused.status_code == 403 and "verified" in refused.text
    other = person(oidc_provider, email="mallory@elsewhere.example", email_verified=True)
    refused = await _sign_in(client, oidc_provider, other)
    assert refused.status_code == 403 and "not given a team" in refused.text
    started = await client.get("/login/sso")
    back = oidc_provider.deny(started.headers["location"])
    parts = urlsplit(back)
    denied = await client.get(f"{parts.path}?{parts.query}")
    assert denied.status_code == 403
    assert (await client.get("/account")).status_code == 303  # nobody signed in


async def test_a_callback_not_started_here_is_refused(
    app: FastAPI, client: httpx.AsyncClient, oidc_provider: OidcProvider
) -> None:
    _configure(app, oidc_provider, "example.com=acme:viewer")
    forged = await client.get("/login/sso/callback", params={"code": "x", "state": "y"})
    assert forged.status_code == 403 and "not started here" in forged.text
