"""WATCHPOST_OIDC_*: the e-mail domain → team and role mapping, the checks made at start,
and the client secret that no log line or message may carry."""

from __future__ import annotations

import base64
import logging

import pytest
from pydantic import ValidationError

from tests.console.oidc_provider import OidcProvider, Rewriting, client_for, finish, person, start
from watchpost.console.oidc import OidcError, team_role_for
from watchpost.setting_values import parse_oidc_teams
from watchpost.settings import Settings

pytestmark = pytest.mark.filterwarnings("ignore:get_jwt_config:DeprecationWarning")

PROVIDER_LOGGERS = ("oidc_provider_mock", "authlib", "werkzeug")
"""The provider's server (its authlib logs its clients, secrets and all); Watchpost does not
use authlib at run time."""


def test_teams_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "WATCHPOST_OIDC_TEAMS", "example.com=Ops:responder, Corp.Example=Platform:ADMIN"
    )

    settings = Settings()

    assert settings.oidc_team_map == {
        "example.com": (("Ops", "responder"),),
        "corp.example": (("Platform", "admin"),),
    }
    assert settings.oidc_button == "Sign in with SSO"


def test_one_domain_may_join_several_teams() -> None:
    assert parse_oidc_teams("example.com=Ops:responder,example.com=Team: one:viewer,") == {
        "example.com": (("Ops", "responder"), ("Team: one", "viewer"))
    }
    assert parse_oidc_teams(" , ") == {}


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("example.com", "'example.com' is not domain=Team:role"),
        ("example.com=Ops", "'example.com=Ops' is not domain=Team:role"),
        ("=Ops:admin", "is not domain=Team:role"),
        ("example.com=:admin", "is not domain=Team:role"),
        ("example.com=Ops:", "is not domain=Team:role"),
        ("example.com=Ops:boss", "'boss' is not a role (owner, admin, responder, viewer)"),
        ("localhost=Ops:admin", "'localhost' is not an e-mail domain"),
        ("me@example.com=Ops:admin", "'me@example.com' is not an e-mail domain"),
        ("-x.example=Ops:admin", "is not an e-mail domain"),
        ("example.com=Ops:admin, example.com=ops:viewer", "example.com names team 'ops' twice"),
    ],
)
def test_a_mapping_typo_stops_the_start(
    monkeypatch: pytest.MonkeyPatch, text: str, complaint: str
) -> None:
    monkeypatch.setenv("WATCHPOST_OIDC_TEAMS", text)

    with pytest.raises(ValidationError, match="oidc_teams") as raised:
        Settings()
    assert "WATCHPOST_OIDC_TEAMS: " in str(raised.value)
    assert complaint in str(raised.value)


def test_an_issuer_needs_a_client_and_the_error_does_not_print_the_secret() -> None:
    with pytest.raises(ValidationError) as raised:
        Settings(oidc_issuer="https://id.example", oidc_client_secret="hunter2-secret")

    assert "WATCHPOST_OIDC_ISSUER needs WATCHPOST_OIDC_CLIENT_ID" in str(raised.value)
    assert "hunter2-secret" not in str(raised.value)
    with pytest.raises(ValidationError, match="needs WATCHPOST_OIDC_CLIENT_ID"):
        Settings(oidc_issuer="https://id.example", oidc_client_id="watchpost")
    with pytest.raises(ValidationError, match="http"):
        Settings(oidc_issuer="id.example", oidc_client_id="w", oidc_client_secret="s")


def test_team_roles_for_a_verified_address() -> None:
    mapping = parse_oidc_teams(
        "example.com=Ops:responder, example.com=Web:viewer, b.example=B:admin"
    )

    assert team_role_for("ada@example.com", mapping, email_verified=True) == [
        ("Ops", "responder"),
        ("Web", "viewer"),
    ]
    assert team_role_for("Ada@EXAMPLE.Com", mapping, email_verified=True) == [
        ("Ops", "responder"),
        ("Web", "viewer"),
    ]
    assert team_role_for("bob@b.example", mapping, email_verified=True) == [("B", "admin")]
    # the exact domain only: neither a subdomain nor a parent
    assert team_role_for("ada@ops.example.com", mapping, email_verified=True) == []
    assert team_role_for("ada@example", mapping, email_verified=True) == []
    assert team_role_for("example.com", mapping, email_verified=True) == []
    assert team_role_for("@example.com", mapping, email_verified=True) == []
    assert team_role_for("ada@example.com", {}, email_verified=True) == []


def test_an_unverified_address_gets_no_team() -> None:
    mapping = parse_oidc_teams("example.com=Ops:owner")

    with pytest.raises(OidcError, match="not verified at the sign-in provider"):
        team_role_for("ada@example.com", mapping, email_verified=False)


async def test_the_client_secret_is_never_logged_nor_shown(
    oidc_provider: OidcProvider, caplog: pytest.LogCaptureFixture
) -> None:
    """A sign-in that works (Basic credentials), one sent as client_secret_post, and one with a
    wrong secret, with every logger of the client side at DEBUG (ours, httpx, httpcore)."""
    caplog.set_level(logging.DEBUG)
    wrong = "wrong-secret-Z9q"
    secrets = [oidc_provider.client_secret, wrong]
    sub = person(oidc_provider, email="ada@example.com", email_verified=True)
    good = client_for(oidc_provider)
    await finish(good, oidc_provider, *await start(good, oidc_provider, sub))
    post = client_for(
        oidc_provider,
        transport=Rewriting(
            "/.well-known/openid-configuration",
            lambda document: (
                document | {"token_endpoint_auth_methods_supported": ["client_secret_post"]}
            ),
        ),
    )
    with pytest.raises(OidcError) as refused_post:  # registered for Basic: refused
        await finish(post, oidc_provider, *await start(post, oidc_provider, sub))
    bad = client_for(oidc_provider, client_secret=wrong)
    with pytest.raises(OidcError) as refused:
        await finish(bad, oidc_provider, *await start(bad, oidc_provider, sub))

    shown = [str(refused.value), str(refused_post.value), repr(good), repr(post), repr(bad)]
    shown += [repr(Settings(**oidc_provider.settings()))]  # type: ignore[arg-type]
    logged = []
    for record in caplog.records:
        if record.name.split(".")[0] in PROVIDER_LOGGERS:
            continue  # the provider's side, in this process only for the test
        logged += [logging.Formatter().format(record), repr(record.args), repr(vars(record))]
    assert any("token endpoint answered 401" in line for line in logged)  # the log was read
    for secret in secrets:
        basic = base64.b64encode(f"{oidc_provider.client_id}:{secret}".encode()).decode()
        for text in shown + logged:
            assert secret not in text
            assert basic not in text
