"""Single sign-on against a real OpenID provider (tests/console/oidc_provider.py): the code
flow as a person goes through it, and each way a sign-in must be refused."""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey
from pydantic import SecretStr

from tests.console.oidc_provider import (
    OidcProvider,
    Rewriting,
    callback_params,
    client_for,
    finish,
    person,
    real_clock,
    start,
)
from watchpost.console.oidc import (
    OidcClient,
    OidcError,
    OidcIdentity,
    OidcPending,
    callback_refusal,
    code_challenge,
)
from watchpost.settings import Settings

# the provider's authlib warns of its own use of an old authlib API
pytestmark = pytest.mark.filterwarnings("ignore:get_jwt_config:DeprecationWarning")


async def test_a_person_signs_in_through_the_provider(oidc_provider: OidcProvider) -> None:
    sub = person(oidc_provider, email="Ada@Example.com", email_verified=True, name="Ada L")
    client = client_for(oidc_provider)
    await client.discover()

    url, pending = client.begin(oidc_provider.redirect_uri)

    query = callback_params(url)
    assert url.startswith(f"{oidc_provider.issuer}/oauth2/authorize?")
    assert query["client_id"] == oidc_provider.client_id
    assert query["scope"] == "openid email profile"
    assert (query["state"], query["nonce"]) == (pending.state, pending.nonce)
    assert query["code_challenge"] == code_challenge(pending.code_verifier)
    assert query["code_challenge_method"] == "S256"
    params = callback_params(oidc_provider.authorize(url, sub=sub))
    identity = await client.finish(
        code=params["code"],
        state=params["state"],
        pending=OidcPending.from_json(pending.to_json()),
        redirect_uri=oidc_provider.redirect_uri,
    )
    assert identity == OidcIdentity(
        subject=sub, email="Ada@Example.com", email_verified=True, name="Ada L"
    )


async def test_an_address_the_provider_has_not_verified_says_so(
    oidc_provider: OidcProvider,
) -> None:
    sub = person(oidc_provider, email="eve@example.com")
    client = client_for(oidc_provider)

    identity = await finish(client, oidc_provider, *await start(client, oidc_provider, sub))

    assert (identity.email, identity.email_verified, identity.name) == (
        "eve@example.com",
        False,
        None,
    )


async def test_a_callback_with_another_state_is_refused_and_the_code_stays_unused(
    oidc_provider: OidcProvider,
) -> None:
    sub = person(oidc_provider, email="a@example.com", email_verified=True)
    client = client_for(oidc_provider)
    code, pending = await start(client, oidc_provider, sub)

    with pytest.raises(OidcError, match="does not match the one started here"):
        await client.finish(
            code=code, state="forged", pending=pending, redirect_uri=oidc_provider.redirect_uri
        )
    assert (await finish(client, oidc_provider, code, pending)).subject == sub


async def test_a_code_is_good_once(oidc_provider: OidcProvider) -> None:
    sub = person(oidc_provider, email="a@example.com", email_verified=True)
    client = client_for(oidc_provider)
    code, pending = await start(client, oidc_provider, sub)
    await finish(client, oidc_provider, code, pending)

    with pytest.raises(OidcError, match="refused the sign-in code"):
        await finish(client, oidc_provider, code, pending)


async def test_an_id_token_for_another_sign_in_is_refused(oidc_provider: OidcProvider) -> None:
    """The nonce ties the ID token to the browser that began: a token minted for another
    sign-in (same state cookie, another nonce) is refused."""
    sub = person(oidc_provider, email="a@example.com", email_verified=True)
    client = client_for(oidc_provider)
    code, pending = await start(client, oidc_provider, sub)

    with pytest.raises(OidcError, match=r"\(wrong nonce\)"):
        await finish(client, oidc_provider, code, replace(pending, nonce="another-sign-in"))


def _payload(token: str) -> dict[str, Any]:
    body = token.split(".")[1]
    decoded: dict[str, Any] = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    return decoded


def _with_payload(token: str, claims: dict[str, Any]) -> str:
    header, _, signature = token.split(".")
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"{header}.{body}.{signature}"


async def test_an_id_token_changed_on_the_way_is_refused(oidc_provider: OidcProvider) -> None:
    def to_mallory(tokens: dict[str, Any]) -> dict[str, Any]:
        claims = _payload(tokens["id_token"]) | {"email": "mallory@example.com"}
        return tokens | {"id_token": _with_payload(tokens["id_token"], claims)}

    sub = person(oidc_provider, email="a@example.com", email_verified=True)
    client = client_for(oidc_provider, transport=Rewriting("/oauth2/token", to_mallory))
    code, pending = await start(client, oidc_provider, sub)

    with pytest.raises(OidcError, match=r"\(bad signature\)"):
        await finish(client, oidc_provider, code, pending)


async def test_an_id_token_signed_by_another_key_is_refused(oidc_provider: OidcProvider) -> None:
    """Same claims, signed by a key the provider's JWKS does not hold: the client reads the
    JWKS again (keys rotate) and still finds no such key."""
    forger = RSAKey.generate_key(2048)

    def resigned(tokens: dict[str, Any]) -> dict[str, Any]:
        claims = _payload(tokens["id_token"])
        return tokens | {"id_token": jwt.encode({"alg": "RS256", "kid": "forged"}, claims, forger)}

    transport = Rewriting("/oauth2/token", resigned)
    sub = person(oidc_provider, email="a@example.com", email_verified=True)
    client = client_for(oidc_provider, transport=transport)
    code, pending = await start(client, oidc_provider, sub)

    with pytest.raises(OidcError, match=r"\(unknown signing key\)"):
        await finish(client, oidc_provider, code, pending)
    assert [r.url.path for r in transport.sent].count("/jwks") == 2


async def test_an_id_token_issued_to_another_client_is_refused(oidc_provider: OidcProvider) -> None:
    """A genuine, well-signed token from the same provider, for another client (another
    application the person signed in to) and the same nonce: the audience is wrong."""
    stolen: list[str] = []

    def keep(tokens: dict[str, Any]) -> dict[str, Any]:
        stolen.append(tokens["id_token"])
        return tokens

    other_id, other_secret = oidc_provider.register(oidc_provider.redirect_uri)
    other = client_for(
        oidc_provider,
        transport=Rewriting("/oauth2/token", keep),
        client_id=other_id,
        client_secret=other_secret,
    )
    sub = person(oidc_provider, email="a@example.com", email_verified=True)
    code, pending = await start(other, oidc_provider, sub)
    await finish(other, oidc_provider, code, pending)
    ours = client_for(
        oidc_provider,
        transport=Rewriting("/oauth2/token", lambda tokens: tokens | {"id_token": stolen[0]}),
    )
    code, our_pending = await start(ours, oidc_provider, sub)

    with pytest.raises(OidcError, match=r"\(wrong aud\)"):
        await finish(ours, oidc_provider, code, replace(our_pending, nonce=pending.nonce))


async def test_an_expired_id_token_is_refused(oidc_provider: OidcProvider) -> None:
    clock = real_clock()
    sub = person(oidc_provider, email="a@example.com", email_verified=True)
    client = client_for(oidc_provider, clock=clock)
    code, pending = await start(client, oidc_provider, sub)

    clock.advance(timedelta(hours=2))  # the provider's tokens last an hour
    fresh = replace(pending, created_at=int(clock.now().timestamp()))
    with pytest.raises(OidcError, match=r"\(expired\)"):
        await finish(client, oidc_provider, code, fresh)


async def test_an_id_token_from_the_future_is_refused(oidc_provider: OidcProvider) -> None:
    """Issued (iat) more than the leeway after our clock's now: a clock far off, or a replay
    of something not yet valid."""
    clock = real_clock()
    sub = person(oidc_provider, email="a@example.com", email_verified=True)
    client = client_for(oidc_provider, clock=clock)
    code, pending = await start(client, oidc_provider, sub)

    clock.advance(timedelta(seconds=-120))
    with pytest.raises(OidcError, match=r"\(wrong iat\)"):
        await finish(client, oidc_provider, code, pending)


async def test_a_person_without_an_email_address_is_refused(oidc_provider: OidcProvider) -> None:
    sub = person(oidc_provider, name="No Mail")
    client = client_for(oidc_provider)
    code, pending = await start(client, oidc_provider, sub)

    with pytest.raises(OidcError, match="did not share your e-mail address"):
        await finish(client, oidc_provider, code, pending)


async def test_a_sign_in_left_too_long_at_the_provider_is_refused(
    oidc_provider: OidcProvider,
) -> None:
    clock = real_clock()
    sub = person(oidc_provider, email="a@example.com", email_verified=True)
    client = client_for(oidc_provider, clock=clock)
    code, pending = await start(client, oidc_provider, sub)

    clock.advance(timedelta(minutes=10, seconds=1))
    with pytest.raises(OidcError, match="took too long"):
        await finish(client, oidc_provider, code, pending)


async def test_a_wrong_client_secret_is_refused_by_the_provider(
    oidc_provider: OidcProvider,
) -> None:
    sub = person(oidc_provider, email="a@example.com", email_verified=True)
    client = client_for(oidc_provider, client_secret="not-the-secret")
    code, pending = await start(client, oidc_provider, sub)

    with pytest.raises(OidcError, match="refused the sign-in code"):
        await finish(client, oidc_provider, code, pending)


async def test_client_secret_post_when_that_is_what_the_provider_advertises(
    oidc_provider: OidcProvider,
) -> None:
    """A client registered for client_secret_post: the provider refuses the same client
    sending Basic credentials, and accepts the form once discovery advertises it."""
    post_id, post_secret = oidc_provider.register(
        oidc_provider.redirect_uri, auth_method="client_secret_post"
    )
    sub = person(oidc_provider, email="a@example.com", email_verified=True)
    basic = client_for(oidc_provider, client_id=post_id, client_secret=post_secret)
    with pytest.raises(OidcError, match="refused the sign-in code"):
        await finish(basic, oidc_provider, *await start(basic, oidc_provider, sub))

    advertised = Rewriting(
        "/.well-known/openid-configuration",
        lambda document: (
            document | {"token_endpoint_auth_methods_supported": ["client_secret_post"]}
        ),
    )
    client = client_for(
        oidc_provider, transport=advertised, client_id=post_id, client_secret=post_secret
    )
    identity = await finish(client, oidc_provider, *await start(client, oidc_provider, sub))
    assert identity.subject == sub


async def test_the_person_cancelling_at_the_provider(oidc_provider: OidcProvider) -> None:
    client = client_for(oidc_provider)
    await client.discover()
    url, _ = client.begin(oidc_provider.redirect_uri)

    params = callback_params(oidc_provider.deny(url))

    assert params["error"] == "access_denied"
    assert str(callback_refusal(params["error"])) == "The sign-in was cancelled at the provider."
    assert "refused the sign-in" in str(callback_refusal("server_error"))


async def test_discovery_is_read_once(oidc_provider: OidcProvider) -> None:
    transport = Rewriting()
    client = client_for(oidc_provider, transport=transport)

    first = await client.discover()
    assert await client.discover() is first
    assert [r.url.path for r in transport.sent] == ["/.well-known/openid-configuration"]
    assert urlsplit(first.token_endpoint).netloc == urlsplit(oidc_provider.issuer).netloc


@pytest.mark.parametrize(
    "lie",
    [
        {"issuer": "https://elsewhere.example"},
        {"jwks_uri": None},
        {"id_token_signing_alg_values_supported": ["none", "HS256"]},
        {"token_endpoint_auth_methods_supported": ["private_key_jwt"]},
    ],
)
async def test_a_discovery_document_we_cannot_trust_is_refused(
    oidc_provider: OidcProvider, lie: dict[str, Any]
) -> None:
    transport = Rewriting("/.well-known/openid-configuration", lambda document: document | lie)
    client = client_for(oidc_provider, transport=transport)

    with pytest.raises(OidcError, match="misconfigured"):
        await client.discover()
    with pytest.raises(RuntimeError):
        client.begin(oidc_provider.redirect_uri)


async def test_an_unreachable_provider() -> None:
    client = OidcClient(
        issuer="http://127.0.0.1:9",  # discard: nothing listens
        client_id="watchpost",
        client_secret=SecretStr("s"),
        clock=real_clock(),
    )
    with pytest.raises(OidcError, match="could not be reached"):
        await client.discover()


def test_no_client_when_single_sign_on_is_not_configured() -> None:
    assert OidcClient.from_settings(Settings(), real_clock()) is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        '{"state": "s"}',
        '{"state": "s", "nonce": "n", "code_verifier": "v", "created_at": "x"}',
    ],
)
def test_a_pending_sign_in_that_was_not_made_here(text: str) -> None:
    with pytest.raises(OidcError, match="not started here"):
        OidcPending.from_json(text)
