"""Signing in, in Chromium (Playwright Test, tests/factories/console.py): the first sign-in
from the link `watchpost user create` prints, a wrong password, the rate limit, the second
factor, a cross-site form refused, JavaScript off; axe-core on every page met, and each page
at 375 px without sideways scrolling."""

from __future__ import annotations

from pathlib import Path

import pyotp
from fastapi import FastAPI

from tests.factories.console import add_person, run_console_spec
from watchpost.console.paths import link_url
from watchpost.people import accounts, second_factor
from watchpost.probes.monitors import browser
from watchpost.teams.models import User

SPEC = r"""
test('first sign-in from the one-time link', async ({ page }) => {
  await page.goto(env.LINK);
  await expect(page.getByRole('heading', { name: 'Set your password' })).toBeVisible();
  await axe(page);
  await page.getByLabel('New password').fill('a new password of mine');
  await page.getByLabel('Repeat the password').fill('a new password of mine');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('heading', { name: /Overview/ })).toBeVisible();
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/overview-desktop.png', fullPage: true });
  // The link worked once.
  await page.goto(env.LINK);
  await expect(page.getByRole('heading', { name: 'This link no longer works' })).toBeVisible();
  await page.goto(env.BASE + '/account');
  await axe(page);
  await phone(page);
  await noSideScroll(page);
  await page.screenshot({ path: env.SHOTS + '/account-phone.png', fullPage: true });
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
});

test('a wrong password, then the rate limit', async ({ page }) => {
  await phone(page);
  await signIn(page, env.LIMITED, 'not my password');
  await expect(page.getByText('Wrong e-mail address or password.')).toBeVisible();
  await axe(page);
  await noSideScroll(page);
  await page.screenshot({ path: env.SHOTS + '/login-phone.png', fullPage: true });
  for (let i = 1; i < Number(env.LIMIT); i++) await signIn(page, env.LIMITED, 'wrong again');
  await signIn(page, env.LIMITED);
  await expect(page.getByText(/Too many sign-in attempts/)).toBeVisible();
});

test('the second factor', async ({ page }) => {
  await signIn(page, env.TOTP_PERSON);
  await expect(page.getByRole('heading', { name: 'Two-factor sign-in' })).toBeVisible();
  await axe(page);
  await page.getByLabel('Code').fill('000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('That code is not right.')).toBeVisible();
  await page.getByLabel('Code').fill(env.CODE);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('heading', { name: /Overview/ })).toBeVisible();
});

test('a form of another site is refused', async ({ page }) => {
  await signIn(page, env.PERSON);
  await expect(page.getByRole('heading', { name: /Overview/ })).toBeVisible();
  await page.setContent('<form method="post" action="' + env.BASE +
    '/account/sessions/revoke-all"><input name="csrf" value="guessed"><button>Go</button></form>');
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/account/sessions/revoke-all')),
    page.getByRole('button', { name: 'Go' }).click(),
  ]);
  expect(answer.status()).toBe(403);
  await page.goto(env.BASE + '/account');
  await expect(page.getByRole('heading', { name: 'Your account' })).toBeVisible();
});

test.describe('JavaScript off', () => {
  test.use({ javaScriptEnabled: false });
  test('sign in, read, sign out', async ({ page }) => {
    await signIn(page, env.PERSON);
    await expect(page.getByRole('heading', { name: /Overview/ })).toBeVisible();
    await page.goto(env.BASE + '/account');
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await page.goto(env.BASE + '/account');
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  });
});
"""


async def test_sign_in_in_chromium(
    app: FastAPI, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    ctx = app.state.ctx
    now = ctx.clock.now()
    first = await add_person(app, email="new@example.com", password=None, role="owner")
    await add_person(app, email="ann@example.com", role="viewer")
    await add_person(app, email="limited@example.com")
    totp = await add_person(app, email="totp@example.com", role="responder")
    secret = pyotp.random_base32()
    async with ctx.db.write_sessions() as session, session.begin():
        user = await session.get(User, first)
        assert user is not None
        token = await accounts.make_link(session, user=user, purpose="password", now=now)
        totp_user = await session.get(User, totp)
        assert totp_user is not None
        await second_factor.enable(session, user=totp_user, secret=secret, box=ctx.box, now=now)
    env = {
        "PERSON": "ann@example.com",
        "LIMITED": "limited@example.com",
        "LIMIT": str(ctx.settings.login_per_minute_account),
        "TOTP_PERSON": "totp@example.com",
        "CODE": pyotp.TOTP(secret).at(now),
    }

    async def with_link(base: str) -> dict[str, str]:
        return {**env, "LINK": link_url(base, token)}

    await run_console_spec(app, playwright_runtime, tmp_path, SPEC, tests=5, env_for=with_link)
