"""The locations pages in Chromium, driven by labels and roles: an admin creates a location
from the menu, creates a probe token (the token and the `watchpost probe` command shown
once, never again), sees it listed; axe-core clean in light and dark, at 1280 and 375 px
without sideways scrolling, the monitor page's "Checked from" too."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from sqlalchemy import select

from tests.console.test_locations_pages import probe_tokens
from tests.factories.api import Api
from tests.factories.console import add_person, run_console_spec
from tests.factories.monitors import create_monitor
from watchpost.locations.models import Location
from watchpost.monitors import placement
from watchpost.probes.monitors import browser

SPEC = r"""
async function everyWay(page, name) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await axe(page);
      await noSideScroll(page);
      await page.screenshot({
        path: env.SHOTS + '/' + name + '-' + scheme + '-' + width + '.png', fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

test('a location and its probe token, the command shown once', async ({ page }) => {
  await signIn(page, 'olga@example.com');
  await page.getByRole('link', { name: 'Locations' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Locations');
  await everyWay(page, 'locations');
  await page.getByRole('link', { name: 'New location' }).click();
  await page.getByLabel('Name').fill('Office Lab');
  await page.getByLabel('Region').selectOption('eu');
  await page.getByRole('button', { name: 'Create location' }).click();
  await expect(page.getByRole('alert')).toContainText('lower-case letters');
  await everyWay(page, 'location-form-error');
  await page.getByLabel('Name').fill('office-lab');
  await page.getByRole('button', { name: 'Create location' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Location office-lab');

  await page.getByLabel('Token name').fill('probe-1');
  await page.getByRole('button', { name: 'Create probe token' }).click();
  const status = page.getByRole('status');
  await expect(status).toContainText('shown only this once');
  const token = (await status.innerText()).match(/wpp_[A-Za-z0-9_-]{20,}/)[0];
  await expect(status).toContainText(
    'watchpost probe --server ' + env.BASE + ' --token ' + token);
  await everyWay(page, 'location-token-created');

  await page.goto(env.BASE + '/locations');
  const row = page.getByRole('row').filter({ hasText: 'office-lab' });
  await expect(row).toContainText('Your team');
  await expect(row).toContainText('Not heard from');
  await row.getByRole('link', { name: 'office-lab' }).click();
  await expect(page.getByRole('main')).not.toContainText(token);
  const tokenRow = page.getByRole('row').filter({ hasText: 'probe-1' });
  await expect(tokenRow).toContainText(token.slice(0, 12) + '…');
  await expect(tokenRow).toContainText('Active');
  await everyWay(page, 'location');
});

test('the monitor page says where it is checked from', async ({ page }) => {
  await signIn(page, 'olga@example.com');
  await page.goto(env.BASE + '/monitors/' + env.MONITOR);
  await expect(page.getByRole('heading', { name: 'Checked from' })).toBeVisible();
  await expect(page.getByRole('main')).toContainText('Down when most locations fail');
  await everyWay(page, 'monitor-checked-from');
  await page.goto(env.BASE + '/monitors/' + env.MONITOR + '/edit');
  await expect(page.getByRole('group', { name: 'Locations' }).first()).toBeVisible();
  await expect(page.getByLabel('eu-west (eu, shared)')).toBeChecked();
  await everyWay(page, 'monitor-form-locations');
});
"""


async def test_locations_in_a_browser(
    app: FastAPI, api: Api, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    await add_person(app, email="olga@example.com", role="owner", name="Olga Owner")
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        session.add(Location(name="eu-west", region="eu", private=True, created_at=ctx.clock.now()))
    monitor = await create_monitor(api, locations=["eu-west"])
    async with ctx.db.write_sessions() as session, session.begin():
        await placement.place_all(session, now=ctx.clock.now())
    await run_console_spec(
        app, playwright_runtime, tmp_path, SPEC, tests=2, env={"MONITOR": str(monitor["id"])}
    )
    [token] = await probe_tokens(app)
    assert token.name == "probe-1" and token.revoked_at is None
    async with ctx.db.read_sessions() as session:
        found = await session.scalar(select(Location).where(Location.name == "office-lab"))
    assert found is not None and found.team_id == api.team_id and found.private
