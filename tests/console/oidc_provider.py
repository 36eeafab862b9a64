"""A real OpenID provider for the single sign-on tests: oidc-provider-mock (Flask and authlib:
discovery, JWKS, the authorization code flow, RS256-signed ID tokens) served over HTTP on a
free port in a thread.

Clients must register (require_client_registration), so a wrong client secret is refused as
a real provider refuses it, and the authorization request must carry a nonce. The provider
does not check PKCE (it registers no code challenge extension): our client sends it anyway.
"""

from __future__ import annotations

import json
import secrets
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import authlib.deprecate  # type: ignore[import-untyped]
import httpx
import pytest

with warnings.catch_warnings():
    # It imports authlib.jose and authlib's httpx client, which authlib now calls deprecated
    # (in favour of joserfc and httpx2); authlib.deprecate's own filter says "always" unless
    # ours comes after it.
    warnings.simplefilter("ignore", authlib.deprecate.AuthlibDeprecationWarning)
    import oidc_provider_mock  # type: ignore[import-untyped]

from watchpost.clock import FrozenClock
from watchpost.console.oidc import OidcClient, OidcIdentity, OidcPending
from watchpost.settings import Settings

DEFAULT_REDIRECT_URI = "http://127.0.0.1:9/console/login/sso/callback"


@dataclass(frozen=True)
class OidcProvider:
    """The running provider, a client registered at it, and the steps a person takes there."""

    issuer: str
    client_id: str
    client_secret: str = field(repr=False)
    redirect_uri: str
    """The one redirect URI registered for client_id."""

    def register(
        self, *redirect_uris: str, auth_method: str = "client_secret_basic"
    ) -> tuple[str, str]:
        """Another client (dynamic client registration, RFC 7591): its id and secret."""
        response = httpx.post(
            f"{self.issuer}/oauth2/clients",
            json={"redirect_uris": list(redirect_uris), "token_endpoint_auth_method": auth_method},
        )
        response.raise_for_status()
        body = response.json()
        return body["client_id"], body["client_secret"]

    def set_user(self, sub: str, **claims: object) -> None:
        """The claims the provider tells of `sub` (email, email_verified, name …). A subject
        never set gets {"email": sub} only (unverified)."""
        httpx.put(f"{self.issuer}/users/{sub}", json=claims).raise_for_status()

    def authorize(self, authorization_url: str, *, sub: str) -> str:
        """Sign in as `sub` on the provider's authorization page, as its form does (POST to the
        same URL); the URL it redirects back to, with ?code=…&state=…"""
        page = httpx.get(authorization_url)
        assert page.status_code == 200, page.text
        assert 'name="sub"' in page.text  # the form the person fills in
        return _redirect(httpx.post(authorization_url, data={"sub": sub}))

    def deny(self, authorization_url: str) -> str:
        """Press the page's Deny button; the URL it redirects back to, with ?error=…"""
        return _redirect(httpx.post(authorization_url, data={"action": "deny"}))

    def settings(self) -> dict[str, str]:
        """WATCHPOST_OIDC_* for this provider and client, as Settings keyword arguments."""
        return {
            "oidc_issuer": self.issuer,
            "oidc_client_id": self.client_id,
            "oidc_client_secret": self.client_secret,
        }


def callback_params(url: str) -> dict[str, str]:
    """The query of the URL the provider redirected to, one value a name."""
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}


Edit = Callable[[dict[str, Any]], dict[str, Any]]


class Rewriting(httpx.AsyncBaseTransport):
    """Sends to the real provider; the JSON answer at `path` goes through `edit` (a provider
    or a network that lies). Counts the requests it sends."""

    def __init__(self, path: str = "", edit: Edit | None = None) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.path, self.edit = path, edit
        self.sent: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        response = await self.inner.handle_async_request(request)
        if self.edit is None or request.url.path != self.path:
            return response
        body = json.loads(await response.aread())
        return httpx.Response(response.status_code, json=self.edit(body))


def person(provider: OidcProvider, **claims: object) -> str:
    """A new subject at the provider, with these claims."""
    sub = f"person-{secrets.token_hex(4)}"
    provider.set_user(sub, **claims)
    return sub


def client_for(
    provider: OidcProvider,
    *,
    clock: FrozenClock | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    client_id: str | None = None,
    client_secret: str | None = None,
) -> OidcClient:
    """An OidcClient built from settings, as the app builds it: for the provider's registered
    client unless another id or secret is given."""
    settings = Settings(
        oidc_issuer=provider.issuer,
        oidc_client_id=client_id or provider.client_id,
        oidc_client_secret=client_secret or provider.client_secret,
    )
    client = OidcClient.from_settings(settings, clock or real_clock(), transport=transport)
    assert client is not None
    return client


def real_clock() -> FrozenClock:
    """The provider stamps its tokens with the real time: start there."""
    return FrozenClock(datetime.now(UTC))


async def start(client: OidcClient, provider: OidcProvider, sub: str) -> tuple[str, OidcPending]:
    """begin(), the person signs in at the provider; the code it sends back, and the pending
    sign-in as it comes back from the caller's cookie."""
    await client.discover()
    url, pending = client.begin(provider.redirect_uri)
    params = callback_params(provider.authorize(url, sub=sub))
    assert params["state"] == pending.state
    return params["code"], OidcPending.from_json(pending.to_json())


async def finish(
    client: OidcClient, provider: OidcProvider, code: str, pending: OidcPending
) -> OidcIdentity:
    return await client.finish(
        code=code, state=pending.state, pending=pending, redirect_uri=provider.redirect_uri
    )


def _redirect(response: httpx.Response) -> str:
    assert response.status_code == 302, response.text
    return response.headers["location"]


@pytest.fixture(scope="session")
def oidc_provider() -> Iterator[OidcProvider]:
    """The provider, started once per session and stopped at its end."""
    with oidc_provider_mock.run_server_in_thread(
        port=0, require_client_registration=True, require_nonce=True
    ) as server:
        issuer = f"http://localhost:{server.server_port}"
        registered = httpx.post(
            f"{issuer}/oauth2/clients", json={"redirect_uris": [DEFAULT_REDIRECT_URI]}
        )
        registered.raise_for_status()
        yield OidcProvider(
            issuer=issuer,
            client_id=registered.json()["client_id"],
            client_secret=registered.json()["client_secret"],
            redirect_uri=DEFAULT_REDIRECT_URI,
        )
