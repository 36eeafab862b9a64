"""Single sign-on in Chromium against the real OpenID provider (oidc-provider-mock): the
button on the sign-in page, the provider's own page, back signed in with the mapped team."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from tests.console.oidc_provider import OidcProvider
from tests.factories.api import Api
from tests.factories.console import run_console_spec
from watchpost.clock import FrozenClock
from watchpost.probes.monitors import browser

pytestmark = pytest.mark.filterwarnings("ignore:get_jwt_config:DeprecationWarning")

SPEC = r"""
test('sign in with the provider', async ({ page }) => {
  // The provider's page asks a CDN for its stylesheet; nothing here reaches the internet.
  await page.route((url) => !['127.0.0.1', 'localhost'].includes(url.hostname),
    (route) => route.abort());
  await page.goto(env.BASE + '/login');
  await axe(page);
  await page.getByRole('link', { name: 'Sign in with Example SSO' }).click();
  // The provider's page (not ours): its subject field and its button.
  await page.getByPlaceholder('sub').fill(env.SUBJECT);
  await page.getByRole('button', { name: 'Authorize', exact: true }).click();
  await expect(page.getByRole('heading', { name: /Overview/ })).toBeVisible();
  await page.goto(env.BASE + '/account');
  await expect(page.getByText('ada@example.com')).toBeVisible();
  await expect(page.getByText('acme (responder)')).toBeVisible();
});
"""


async def test_single_sign_on_in_chromium(
    app: FastAPI,
    api: Api,
    oidc_provider: OidcProvider,
    playwright_runtime: browser.Runtime,
    tmp_path: Path,
) -> None:
    oidc_provider.set_user("ada", email="ada@example.com", email_verified=True, name="Ada")
    ctx = app.state.ctx
    ctx.clock = FrozenClock(datetime.now(UTC))  # the provider stamps tokens with real time

    async def configure(base: str) -> dict[str, str]:
        client_id, secret = oidc_provider.register(f"{base}/login/sso/callback")
        ctx.settings.oidc_issuer = oidc_provider.issuer
        ctx.settings.oidc_client_id = client_id
        ctx.settings.oidc_client_secret = SecretStr(secret)
        ctx.settings.oidc_teams = "example.com=acme:responder"
        ctx.settings.oidc_button = "Sign in with Example SSO"
        ctx.settings.__dict__.pop("oidc_team_map", None)
        return {"SUBJECT": "ada"}

    await run_console_spec(app, playwright_runtime, tmp_path, SPEC, tests=1, env_for=configure)
    member = (await api.get("/api/v2/team-members", params={"email": "ada@example.com"})).json()
    assert member["data"]["attributes"]["role"] == "responder"
