"""A public status page in a real browser: Debian's Chromium, headless, driven by Playwright
Test (runners/playwright, scripts/install-playwright) with JavaScript off, against the app
served by a real uvicorn.

It checks what a person sees (the company, section and resource names, the overall state,
one bar per day of the page's history with its tooltip, the state of each resource, the
password form and what it opens), takes full-page screenshots at desktop (1280 px) and
phone (375 px) widths, and checks that neither scrolls sideways. Without Node, the runner
or Chromium the test skips with the reason, unless WATCHPOST_REQUIRE_SERVICES is set (CI),
which makes that a failure. WATCHPOST_SCREENSHOTS=<folder> keeps the screenshots.
"""

from __future__ import annotations

import os
import struct
from datetime import timedelta
from pathlib import Path

from fastapi import FastAPI

from tests.factories.api import TEST_PASSWORD, Api, data
from tests.factories.history import obs, write
from tests.factories.playwright import run_spec
from tests.factories.served import serving
from tests.public_machine.helpers import PAGES, hit, new_page, new_report, new_section
from watchpost.incidents.models import Incident
from watchpost.probes.monitors import browser

HISTORY_DAYS = 30
SPEC = r"""
const { test, expect } = require('@playwright/test');
const env = process.env;
test.use({ javaScriptEnabled: false });

async function noSideScroll(page) {
  const widths = await page.evaluate(() => [
    document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  expect(widths[0], 'page width ' + widths[0] + ' > viewport ' + widths[1])
    .toBeLessThanOrEqual(widths[1]);
}

for (const [name, width] of [['desktop', 1280], ['phone', 375]]) {
  test('the page at ' + name + ' width', async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    const response = await page.goto(env.PAGE_URL);
    expect(response.status()).toBe(200);
    await expect(page).toHaveTitle(/Acme Inc/);
    const state = page.locator('[aria-label="Overall status"]');
    await expect(state).toBeVisible();
    await expect(state).toHaveText('Partial outage');
    await expect(page.getByRole('heading', { name: 'Core' })).toBeVisible();
    for (const [resource, status] of [['Public API', 'Downtime'], ['Website', 'Operational']]) {
      const item = page.locator('li', { has: page.locator('.name', { hasText: resource }) });
      await expect(item.locator('.name')).toBeVisible();
      await expect(item.locator('.st')).toHaveText(status);
      const bars = item.locator('svg.bars');
      await expect(bars).toBeVisible();
      expect(await bars.getAttribute('data-bars')).toBe(env.DAYS);
      // Runs of equal days are one stroke each (d=M<first>,.5h<days>): together they cover
      // every day once.
      const runs = await bars.locator('path').evaluateAll((paths) => paths.map((p) => {
        const m = /^M(\d+),\.5h(\d+)$/.exec(p.getAttribute('d'));
        return [Number(m[1]), Number(m[2])];
      }));
      const days = new Set();
      for (const [x, w] of runs) for (let day = x; day < x + w; day++) days.add(day);
      expect(days.size).toBe(Number(env.DAYS));
      expect(Math.min(...days)).toBe(0);
      expect(Math.max(...days)).toBe(Number(env.DAYS) - 1);
      const box = await bars.boundingBox();
      expect(box.width / Number(env.DAYS)).toBeGreaterThan(width > 600 ? 10 : 5);
    }
    const website = page.locator('li', { has: page.locator('.name', { hasText: 'Website' }) });
    const tips = await website.locator('svg.bars path title').allTextContents();
    expect(tips.some((t) => /\d+ (s|min|h)\b.* down\b/.test(t)),
      'a day with downtime: ' + tips.join(' | ')).toBe(true);
    expect(tips.some((t) => /no data/i.test(t)), 'days not monitored: ' + tips.join(' | '))
      .toBe(true);
    await expect(page.getByRole('link', { name: 'Database outage' })).toBeVisible();
    await noSideScroll(page);
    await page.screenshot({ path: env.SHOTS + '/page-' + name + '.png', fullPage: true });
  });
}

test('the password form, then the page', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const response = await page.goto(env.LOCKED_URL);
  expect(response.status()).toBe(401);
  await expect(page.getByText('Secret service')).toHaveCount(0);
  const field = page.getByLabel('Password');
  await expect(field).toBeVisible();
  await noSideScroll(page);
  await page.screenshot({ path: env.SHOTS + '/password-phone.png', fullPage: true });
  await field.fill('wrong password');
  await page.getByRole('button').click();
  await expect(page.getByLabel('Password')).toBeVisible();
  await page.getByLabel('Password').fill(env.PASSWORD);
  await page.getByRole('button').click();
  await expect(page.locator('.name', { hasText: 'Secret service' })).toBeVisible();
});
"""


async def _seed(api: Api, app: FastAPI) -> None:
    """acme: Core (Public API, manual, down under a report) and an unnamed section (Website,
    a monitor observed for the last 10 days, with a 30-minute incident 3 days ago);
    locked: a password-protected page."""
    ctx = app.state.ctx
    now = ctx.clock.now()
    page = await new_page(api, history=HISTORY_DAYS)
    body = {"url": "https://www.example.com", "pronounceable_name": "Website"}
    monitor = data(await api.post("/api/v2/monitors", body), 201)["id"]
    resource = {"resource_type": "Monitor", "resource_id": int(monitor), "widget_type": "history"}
    data(await api.post(f"{PAGES}/{page}/resources", resource), 201)
    core = await new_section(api, page, "Core")
    manual = {"public_name": "Public API", "status_page_section_id": int(core)}
    manual["widget_type"] = "history"
    api_id = str(data(await api.post(f"{PAGES}/{page}/resources", manual), 201)["id"])
    await new_report(
        api,
        page,
        title="Database outage",
        message="Requests fail; we are on it.",
        affected_resources=[hit(api_id, "downtime")],
    )
    start = now - timedelta(days=10)
    await write(
        app,
        [
            obs(api.team_id, start + timedelta(hours=h), subject_id=int(monitor), valid_for_s=7200)
            for h in range(10 * 24)
        ],
    )
    began = now - timedelta(days=3)
    async with ctx.db.write_sessions() as session, session.begin():
        session.add(
            Incident(
                team_id=api.team_id,
                name="Timeout",
                cause="Timeout",
                monitor_id=int(monitor),
                started_at=began,
                resolved_at=began + timedelta(minutes=30),
                created_at=began,
                updated_at=began,
            )
        )
    locked = await new_page(api, "locked", password_enabled=True, password=TEST_PASSWORD)
    await api.post(f"{PAGES}/{locked}/resources", {"public_name": "Secret service"})


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


async def test_status_page_in_chromium(
    api: Api, app: FastAPI, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    await _seed(api, app)
    shots = _shots_folder(tmp_path)
    async with serving(app) as base:
        env = {
            "PAGE_URL": f"{base}/status/acme",
            "LOCKED_URL": f"{base}/status/locked",
            "PASSWORD": TEST_PASSWORD,
            "DAYS": str(HISTORY_DAYS),
            "SHOTS": str(shots),
        }
        await run_spec(playwright_runtime, tmp_path / "spec", SPEC, tests=3, env=env)
    _check_shots(shots)


def _shots_folder(tmp_path: Path) -> Path:
    shots = Path(os.environ.get("WATCHPOST_SCREENSHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    return shots


def _check_shots(shots: Path) -> None:
    """The screenshots are PNGs of the viewport's width."""
    assert _png_size(shots / "page-desktop.png")[0] == 1280
    assert _png_size(shots / "page-phone.png")[0] == 375
    assert _png_size(shots / "password-phone.png")[0] == 375
