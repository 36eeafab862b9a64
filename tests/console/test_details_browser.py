"""The monitor, heartbeat and collector target pages in Chromium (Playwright Test,
tests/factories/console.py): 1280 and 375 px without sideways scrolling, axe-core on all
three in light and dark, Pause then Resume by their buttons, the charts' range tabs (the
monitor's response time, the heartbeat's history), Delete asking first, and with JavaScript
off Pause by a plain form post and Delete confirmed by the server's page."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import httpx
from fastapi import FastAPI

from tests.console.test_details_history import record_states
from tests.console.test_details_pages import target_path
from tests.factories.api import Api
from tests.factories.console import add_person, run_console_spec
from tests.factories.engine import engine_of, recording_server
from tests.factories.heartbeats import create_heartbeat
from tests.factories.monitors import create_monitor
from watchpost.clock import FrozenClock
from watchpost.collectors import metrics
from watchpost.probes.monitors import browser

SPEC = r"""
const page_of = (kind, id) => env.BASE + '/' + kind + '/' + id;

async function shoot(page, name) {
  await axe(page);
  await noSideScroll(page);
  await page.screenshot({ path: env.SHOTS + '/' + name + '.png', fullPage: true });
  await legibleCharts(page);
  const chart = page.locator('figure').first();  // the chart and its legend, up close
  if (await chart.count()) await chart.screenshot({ path: env.SHOTS + '/' + name + '-chart.png' });
}

async function bothSizes(page, name) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 1280, height: 900 });
    await shoot(page, name + '-' + scheme + '-desktop');
    await phone(page);
    await shoot(page, name + '-' + scheme + '-phone');
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('the three pages at 1280 and 375 px', async ({ page }) => {
  await signIn(page, env.ADMIN);
  await page.goto(page_of('monitors', env.MONITOR));
  await expect(page.getByRole('heading', { level: 1, name: 'Shop front' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'Response time, last 24 hours' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Availability' })).toBeVisible();
  await bothSizes(page, 'monitor');

  await page.goto(page_of('heartbeats', env.HEARTBEAT));
  await expect(page.getByRole('heading', { level: 1, name: 'nightly backup' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Copy the ping URL' })).toBeVisible();
  await expect(page.getByRole('img', { name: 'History, last 24 hours' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Last pings' })).toBeVisible();
  await expect(page.getByText('disk full')).toBeHidden();  // in a closed <details>
  await bothSizes(page, 'heartbeat');

  await page.goto(page_of('targets', env.TARGET));
  await expect(page.getByRole('heading', { level: 1, name: /redis at 127\.0\.0\.1/ })).toBeVisible();
  await expect(page.getByRole('rowheader', { name: 'connected_clients' })).toBeVisible();
  await bothSizes(page, 'target');
});

test('Pause, then Resume, by the buttons', async ({ page }) => {
  await signIn(page, env.RESPONDER);
  await page.goto(page_of('monitors', env.MONITOR));
  await expect(page.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Paused.' })).toBeVisible();
  await expect(page.locator('.state-line')).toContainText('Paused');
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Resumed.' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
});

test('the range tabs', async ({ page }) => {
  await signIn(page, env.ADMIN);
  await page.goto(page_of('monitors', env.MONITOR));
  const tabs = page.getByRole('navigation', { name: 'Chart range' });
  await tabs.getByRole('link', { name: '7 days' }).click();
  await expect(page).toHaveURL(/range=7d/);
  await expect(page.getByRole('img', { name: 'Response time, last 7 days' })).toBeVisible();
  await expect(tabs.getByRole('link', { name: '7 days' })).toHaveAttribute('aria-current', 'true');
  await tabs.getByRole('link', { name: '30 days' }).click();
  await expect(page.getByRole('img', { name: 'Response time, last 30 days' })).toBeVisible();

  await page.goto(page_of('heartbeats', env.HEARTBEAT));
  await tabs.getByRole('link', { name: '7 days' }).click();
  await expect(page).toHaveURL(/range=7d#history/);
  await expect(page.getByRole('img', { name: 'History, last 7 days' })).toBeVisible();
  await expect(tabs.getByRole('link', { name: '7 days' })).toHaveAttribute('aria-current', 'true');
  await tabs.getByRole('link', { name: '30 days' }).click();
  await expect(page.getByRole('img', { name: 'History, last 30 days' })).toBeVisible();
  await bothSizes(page, 'heartbeat-30d');
});

test('Delete asks first', async ({ page }) => {
  await signIn(page, env.ADMIN);
  await page.goto(page_of('heartbeats', env.DOOMED));
  // The server's own confirmation (what a browser without JavaScript gets), checked by axe.
  await page.evaluate(() => document.querySelector('form[action$="/delete"]').submit());
  await expect(page.getByRole('heading', { level: 1, name: 'Delete the heartbeat “spare job”?' })).toBeVisible();
  await axe(page);
  await page.getByRole('link', { name: 'Cancel' }).click();
  page.once('dialog', (dialog) => dialog.dismiss());
  await page.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'spare job' })).toBeVisible();
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Deleted.' })).toBeVisible();
  await page.goto(page_of('heartbeats', env.DOOMED));
  await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
});

test.describe('JavaScript off', () => {
  test.use({ javaScriptEnabled: false });
  test('Pause by a plain form post; Delete confirmed by the server', async ({ page }) => {
    await signIn(page, env.ADMIN);
    await page.goto(page_of('targets', env.TARGET));
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Paused.' })).toBeVisible();
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Resumed.' })).toBeVisible();
    await page.goto(page_of('monitors', env.SPARE));
    await page.getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('heading', { level: 1, name: /^Delete the monitor/ })).toBeVisible();
    await page.getByRole('button', { name: 'Delete monitor' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Deleted.' })).toBeVisible();
  });
});
"""


async def _history(app: FastAPI, api: Api, clock: FrozenClock) -> int:
    """A monitor checked for a day by the engine, down for an hour of it."""
    async with recording_server() as server:
        created = await create_monitor(
            api,
            url=server.url("/health"),
            pronounceable_name="Shop front",
            check_frequency=60,
            confirmation_period=0,
            recovery_period=0,
        )
        engine = engine_of(app)
        for hour in range(24):
            server.status["/health"] = 500 if hour == 15 else 200
            clock.advance(3600)
            await engine.tick()
    return int(created["id"])


async def test_the_detail_pages_in_chromium(
    app: FastAPI,
    api: Api,
    client: httpx.AsyncClient,
    clock: FrozenClock,
    playwright_runtime: browser.Runtime,
    tmp_path: Path,
) -> None:
    monitor_id = await _history(app, api, clock)
    spare = int((await create_monitor(api, pronounceable_name="Spare"))["id"])
    heartbeat = await create_heartbeat(api, name="nightly backup")
    # 30 days: paused for 3 of them, else up but for a down hour every 5 days, a weekly
    # maintenance window of 2 hours, and 3 hours down yesterday
    states = ["none" if 400 <= k < 472 else "up" for k in range(720)]
    for k in range(0, 720, 120):
        states[k + 5] = "down" if states[k + 5] == "up" else "none"
    for k in range(50, 720, 168):
        states[k : k + 2] = ["maintenance"] * 2
    states[-20:-17] = ["down"] * 3
    await record_states(
        app,
        team_id=api.team_id,
        heartbeat_id=heartbeat.id,
        start=clock.now() - timedelta(hours=720),
        states=states,
    )
    doomed = await create_heartbeat(api, name="spare job")
    for suffix, body in (("", None), ("/1", b"disk full\n" * 40), ("/0", b"done")):
        clock.advance(300)
        assert (await client.post(heartbeat.url + suffix, content=body)).status_code == 200
    target_id, _ = await target_path(api, "db-host")
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        row = metrics.sample_row(
            team_id=api.team_id,
            target_id=target_id,
            at=clock.now(),
            metrics={"connected_clients": 7.0, "used_memory": 1048576.0},
        )
        assert row is not None
        await metrics.add_samples(session, [row])
    await add_person(app, email="admin@example.com", role="admin")
    await add_person(app, email="responder@example.com", role="responder")
    env = {
        "ADMIN": "admin@example.com",
        "RESPONDER": "responder@example.com",
        "MONITOR": str(monitor_id),
        "SPARE": str(spare),
        "HEARTBEAT": str(heartbeat.id),
        "DOOMED": str(doomed.id),
        "TARGET": str(target_id),
    }
    await run_console_spec(app, playwright_runtime, tmp_path, SPEC, tests=5, env=env)
