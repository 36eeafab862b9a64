"""The team pages in Chromium, driven by labels and roles: an invitation from /team followed
to the invited person's first sign-in, an API token shown once then revoked, axe-core on
every team page, and each at 1280 and 375 px wide without sideways scrolling."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from tests.console.team_support import role_of, tokens
from tests.factories.console import add_person, run_console_spec
from watchpost.probes.monitors import browser

SPEC = r"""
test('an invitation made on /team lets the invited person in', async ({ page, browser }) => {
  await signIn(page, 'olga@example.com');
  await page.getByRole('link', { name: 'Team' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Team acme');
  await page.getByLabel('Email', { exact: true }).fill('cy@example.com');
  await page.getByLabel('Name', { exact: true }).fill('Cy Young');
  await page.getByLabel('Role', { exact: true }).selectOption('responder');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Invitation made');
  const status = await page.getByRole('status').innerText();
  const link = status.match(/http\S+\/login\/link\/\S+/)[0];
  await page.screenshot({ path: env.SHOTS + '/team-invited-1280.png', fullPage: true });

  const other = await browser.newContext();
  const invited = await other.newPage();
  await invited.goto(link);
  await expect(invited.getByRole('heading', { level: 1 })).toHaveText('Join acme');
  await invited.getByLabel('New password').fill('Cy-has-a-good-password-1');
  await invited.getByLabel('Repeat the password').fill('Cy-has-a-good-password-1');
  await invited.getByRole('button', { name: 'Join the team' }).click();
  await expect(invited.getByRole('heading', { level: 1 })).toHaveText('Overview of acme');
  await other.close();

  await page.goto(env.BASE + '/team');
  const row = page.getByRole('row').filter({ hasText: 'cy@example.com' });
  await expect(row).toContainText('Cy Young');
  await expect(row.getByLabel('Role of Cy Young')).toHaveValue('responder');
});

test('a token is shown once, then revoked after a confirmation', async ({ page }) => {
  await signIn(page, 'olga@example.com');
  await page.goto(env.BASE + '/team/tokens');
  await page.getByLabel('Token name').fill('Terraform');
  await page.getByRole('button', { name: 'Create token' }).click();
  const status = page.getByRole('status');
  await expect(status).toContainText('shown only this once');
  const token = (await status.innerText()).match(/wp_\S+/)[0];
  await page.screenshot({ path: env.SHOTS + '/team-token-created-1280.png', fullPage: true });
  await page.goto(env.BASE + '/team/tokens');
  await expect(page.getByRole('main')).not.toContainText(token);
  const row = page.getByRole('row').filter({ hasText: 'Terraform' });
  await expect(row).toContainText(token.slice(0, 12) + '…');
  await expect(row).toContainText('Active');
  page.once('dialog', (dialog) => dialog.accept());
  await row.getByRole('button', { name: /Revoke/ }).click();
  await expect(page.getByRole('row').filter({ hasText: 'Terraform' })).toContainText('Revoked');
  const answer = await page.request.get(env.BASE + '/api/v2/monitors', {
    headers: { Authorization: 'Bearer ' + token } });
  expect(answer.status()).toBe(401);
});

test('every team page passes axe and fits 1280 and 375 px', async ({ page }) => {
  await signIn(page, 'olga@example.com');
  for (const [path, name] of [['/team', 'team'], ['/team/tokens', 'team-tokens'],
                              ['/team/audit', 'team-audit'], ['/team/settings', 'team-settings']]) {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(env.BASE + path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await axe(page);
    await noSideScroll(page);
    await page.screenshot({ path: env.SHOTS + '/' + name + '-1280.png', fullPage: true });
    await phone(page);
    await page.goto(env.BASE + path);
    await axe(page);
    await noSideScroll(page);
    await page.screenshot({ path: env.SHOTS + '/' + name + '-375.png', fullPage: true });
  }
});
"""


async def test_team_pages_in_a_browser(
    app: FastAPI, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    await add_person(app, email="olga@example.com", role="owner", name="Olga Owner")
    await add_person(app, email="bo@example.com", role="viewer", name="Bo Viewer")
    await run_console_spec(
        app, playwright_runtime, tmp_path, SPEC, tests=3, shots=Path("/tmp/team-shots")
    )
    assert await role_of(app, "cy@example.com") == "responder"
    [token] = await tokens(app)
    assert token.name == "Terraform" and token.revoked_at is not None
