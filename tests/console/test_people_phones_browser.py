"""Phone numbers in Chromium, driven by labels: a wrong number on /account shown beside the
field, then corrected; an admin gives another member a number on their page, which the
member page and the team's list then show; axe-core on both pages at 1280 and 375 px."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import user_id
from tests.factories.console import add_person, run_console_spec
from watchpost.probes.monitors import browser
from watchpost.teams.models import User

SPEC = r"""
const ids = JSON.parse(env.IDS);

test('a person corrects a wrong number; an admin gives Bo one', async ({ page }) => {
  await signIn(page, 'olga@example.com');
  await page.goto(env.BASE + '/account');
  const field = page.getByLabel('Phone numbers', { exact: true });
  await field.fill('+44 20 7946 0000\n555-01');
  await page.getByRole('button', { name: 'Save phone numbers' }).click();
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#phone_numbers-error')).toContainText('“555-01” is not a phone number');
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/account-phones-error-1280.png', fullPage: true });
  await field.fill('+44 20 7946 0000');
  await page.getByRole('button', { name: 'Save phone numbers' }).click();
  await expect(field).toHaveValue('+442079460000');

  await page.goto(env.BASE + '/team/people/' + ids.bo);
  await page.getByLabel('Phone numbers', { exact: true }).fill('+1 (555) 000-1111');
  await page.getByRole('button', { name: 'Save phone numbers' }).click();
  await expect(page.getByRole('link', { name: '+15550001111' })).toHaveAttribute('href', 'tel:+15550001111');
  await page.goto(env.BASE + '/team');
  const row = page.getByRole('row').filter({ hasText: 'bo@example.com' });
  await expect(row).toContainText('+15550001111');
});

test('the account and member pages pass axe and fit 1280 and 375 px', async ({ page }) => {
  await signIn(page, 'olga@example.com');
  for (const [path, name] of [['/account', 'account'], ['/team/people/' + ids.bo, 'person']]) {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(env.BASE + path);
    await expect(page.getByLabel('Phone numbers', { exact: true })).toBeVisible();
    await axe(page);
    await noSideScroll(page);
    await phone(page);
    await page.goto(env.BASE + path);
    await axe(page);
    await noSideScroll(page);
    await page.screenshot({ path: env.SHOTS + '/' + name + '-phones-375.png', fullPage: true });
  }
});
"""


async def test_phone_numbers_in_a_browser(
    app: FastAPI, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    await add_person(app, email="olga@example.com", role="owner", name="Olga Owner")
    await add_person(app, email="bo@example.com", role="viewer", name="Bo Viewer")
    ids = {"bo": await user_id(app, "bo@example.com")}
    await run_console_spec(
        app, playwright_runtime, tmp_path, SPEC, tests=2, env={"IDS": json.dumps(ids)}
    )
    async with app.state.ctx.db.read_sessions() as db:
        found = dict((await db.execute(select(User.email, User.phone_numbers))).tuples().all())
    assert found["olga@example.com"] == ["+442079460000"]
    assert found["bo@example.com"] == ["+15550001111"]
