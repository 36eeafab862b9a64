"""The navigation and the colour schemes in Chromium: the sidebar at 1280 px, the Menu
disclosure at 375 px (no sideways scroll), and the first page of every section checked by
axe-core in the light and in the dark scheme (prefers-color-scheme), at 1280 and 375 px,
with screenshots of each."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.console import add_person, run_console_spec
from tests.factories.incidents import create_engine_incident
from watchpost.probes.monitors import browser

SPEC = r"""
test('the navigation on a wide screen and on a phone', async ({ page }) => {
  await signIn(page, 'ann@example.com');
  const side = page.locator('nav.nav-side');
  await expect(side).toBeVisible();
  await expect(page.locator('details.menu')).toBeHidden();
  await side.getByRole('link', { name: 'Monitors' }).click();
  await expect(page).toHaveURL(env.BASE + '/monitors');
  await expect(page.getByRole('heading', { name: 'Monitors of acme' })).toBeVisible();
  await expect(side.getByRole('link', { name: 'Monitors' })).toHaveAttribute('aria-current', 'page');
  await page.getByRole('link', { name: 'Shop', exact: true }).click();
  await expect(side.getByRole('link', { name: 'Monitors' })).toHaveAttribute('aria-current', 'true');

  await phone(page);
  await page.goto(env.BASE + '/');
  await expect(side).toBeHidden();
  const menu = page.locator('details.menu');
  await menu.getByText('Menu').click();
  await menu.getByRole('link', { name: 'Heartbeats' }).click();
  await expect(page.getByRole('heading', { name: 'Heartbeats of acme' })).toBeVisible();
  await noSideScroll(page);
  await menu.getByText('Menu').click();
  await noSideScroll(page);
  await axe(page);
});

const PAGES = {
  monitoring: [
    ['overview', '/'], ['monitors', '/monitors'], ['monitor', '/monitors/' + env.SHOP],
    ['incidents', '/incidents'], ['incident', '/incidents/' + env.INCIDENT],
    ['edit', '/monitors/' + env.SHOP + '/edit'],
  ],
  alerting: [
    ['policies', '/policies'], ['oncall', '/on-call'], ['webhooks', '/webhooks'],
    ['channels', '/channels'], ['integrations', '/integrations'],
    ['maintenance', '/maintenance-windows'],
  ],
  rest: [
    ['status-pages', '/status-pages'], ['logs', '/logs'], ['sources', '/sources'],
    ['metrics', '/metrics'], ['team', '/team'], ['team-settings', '/team/settings'],
    ['account', '/account'],
  ],
};
for (const scheme of ['light', 'dark']) {
  for (const width of [1280, 375]) {
    for (const [group, pages] of Object.entries(PAGES)) {
      test(`${group} pages readable in the ${scheme} scheme at ${width} px`, async ({ page }) => {
        await page.emulateMedia({ colorScheme: scheme });
        await page.setViewportSize({ width, height: 900 });
        await signIn(page, 'ann@example.com');
        for (const [name, path] of pages) {
          await page.goto(env.BASE + path);
          await expect(page.locator('main h1')).toBeVisible();
          const background = await page.evaluate(
            () => getComputedStyle(document.body).backgroundColor);
          // The scheme really applies: a dark page on a dark background, a light one on white.
          expect(background, name + ' in ' + scheme).toBe(
            scheme === 'dark' ? 'rgb(17, 19, 24)' : 'rgb(255, 255, 255)');
          await axe(page);
          await noSideScroll(page);
          await page.screenshot({ path: `${env.SHOTS}/${name}-${scheme}-${width}.png`, fullPage: true });
        }
      });
    }
  }
}
"""


async def test_navigation_and_schemes_in_chromium(
    app: FastAPI, api: Api, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    shop = data(
        await api.post(
            "/api/v2/monitors", {"url": "https://shop.example.com", "pronounceable_name": "Shop"}
        ),
        201,
    )["id"]
    data(
        await api.post(
            "/api/v2/monitors",
            {"url": "https://blog.example.com", "pronounceable_name": "Blog", "paused": True},
        ),
        201,
    )
    await api.post("/api/v2/heartbeats", {"name": "Nightly backup"})
    data(await api.post("/api/v2/status-pages", {"subdomain": "shop", "company_name": "Shop"}), 201)
    steps = [{"type": "escalation", "wait_before": 300, "step_members": [{"type": "entire_team"}]}]
    data(await api.post("/api/v3/policies", {"name": "Main", "steps": steps}), 201)
    hook = {"url": "https://hooks.example.com/a", "trigger_type": "incident_change"}
    data(await api.post("/api/v2/outgoing-webhooks", hook), 201)
    incident = await create_engine_incident(app, api, monitor_id=int(shop), name="Shop is down")
    await add_person(app, email="ann@example.com", role="owner")
    await run_console_spec(
        app,
        playwright_runtime,
        tmp_path,
        SPEC,
        tests=13,
        env={"SHOP": str(shop), "INCIDENT": str(incident)},
    )
