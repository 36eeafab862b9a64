"""Logs in Chromium: an admin creates a source (its token and examples shown once);
logtail-python sends logs to the real server, the explorer finds them, a clicked field value
filters them; the live tail shows new lines logtail-python sends while the page is open,
with Pause/Resume. axe-core on each page; 1280 and 375 px screenshots, no sideways scroll.
On SQLite and PostgreSQL (the people and sources), the embedded DuckDB store (the logs)."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi import FastAPI
from logtail import LogtailHandler

from tests.factories.api import TEST_PASSWORD, Api
from tests.factories.console import SPEC_HEAD, add_person
from tests.factories.log_ingest import create_source
from tests.factories.playwright import run_spec
from tests.factories.served import serving
from watchpost.clock import FrozenClock
from watchpost.logs.events import MetricPoint
from watchpost.probes.monitors import browser

SPEC = r"""
test('an admin creates a source and is shown its token once, with examples', async ({ page }) => {
  await signIn(page, env.ADMIN);
  await page.goto(env.BASE + '/sources');
  await expect(page.getByRole('link', { name: 'app', exact: true })).toBeVisible();
  await axe(page);
  await page.getByRole('link', { name: 'Create a source' }).click();
  await page.getByLabel('Name', { exact: true }).fill('Billing');
  await page.getByLabel('Platform').selectOption('python');
  await axe(page);
  await page.getByRole('button', { name: 'Create the source' }).click();
  await expect(page.getByRole('heading', { name: 'Source “Billing” created' })).toBeVisible();
  const token = (await page.locator('#source-token').textContent()).trim();
  expect(token).toMatch(/^wps_/);
  await page.getByText('Python (logtail-python)', { exact: true }).click();  // its <details>
  await expect(page.getByText("host='" + env.BASE + "'")).toBeVisible();
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/source-created-1280.png', fullPage: true });
  await page.getByRole('link', { name: 'Source settings' }).click();
  await expect(page.getByRole('heading', { name: 'Billing', level: 1 })).toBeVisible();
  expect(await page.content()).not.toContain(token);
  await axe(page);
});

test('the explorer finds what logtail-python sent and filters by a clicked value', async ({ page }) => {
  // a row's message (its JSON, in the closed <details>, holds the same words)
  const message = (text) => page.locator('.log-message').getByText(text, { exact: true });
  await signIn(page, env.VIEWER);
  await page.goto(env.BASE + '/logs?source=' + env.SOURCE_ID);  // the ticks go to another
  await expect(page.getByRole('img', { name: /Matching events over time: 3 between/ })).toBeVisible();
  await expect(message('checkout done')).toBeVisible();
  await expect(message('payment declined')).toBeVisible();
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/logs-1280.png', fullPage: true });
  await message('payment declined').click();  // opens its <details>
  await expect(page.getByText('"order_id": 42')).toBeVisible();
  await page.getByRole('link', { name: 'level:error' }).first().click();
  await expect(page.getByLabel('Query', { exact: true })).toHaveValue('level:error');
  await expect(message('payment declined')).toBeVisible();
  await expect(message('checkout done')).toHaveCount(0);
  await expect(page.getByRole('img', { name: /Matching events over time: 1 between/ })).toBeVisible();
  await page.getByLabel('Query', { exact: true }).fill('level:error "unclosed');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.locator('#q-error')).toContainText('unclosed quote');
  await axe(page);
});

test('the live tail shows new lines as they arrive, and pauses', async ({ page }) => {
  await signIn(page, env.VIEWER);
  await page.goto(env.BASE + '/logs/tail?q=tick');
  await expect(page.getByText('Live', { exact: true })).toBeVisible();
  const lines = page.getByRole('list', { name: 'Log lines' }).getByRole('listitem');
  await expect(lines.first()).toContainText('tick', { timeout: 20000 });
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/tail-1280.png', fullPage: true });
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByText('Paused', { exact: true })).toBeVisible();
  await expect(page.getByText(/arrived while paused/)).toBeVisible({ timeout: 20000 });
  const held = await lines.count();
  await page.waitForTimeout(1500);
  expect(await lines.count()).toBe(held);
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect.poll(async () => lines.count(), { timeout: 20000 }).toBeGreaterThan(held);
});

test('at 375 px the pages fit without sideways scrolling', async ({ page }) => {
  await phone(page);
  await signIn(page, env.ADMIN);
  for (const [path, name] of [['/logs', 'logs'], ['/logs/tail', 'tail'], ['/sources', 'sources'],
                              ['/sources/' + env.SOURCE_ID, 'source'], ['/metrics?source=' + env.SOURCE_ID, 'metrics']]) {
    await page.goto(env.BASE + path);
    await noSideScroll(page);
    await legibleCharts(page);
    await axe(page);
    await page.screenshot({ path: env.SHOTS + '/' + name + '-375.png', fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  for (const name of ['logs', 'metrics']) {
    await page.goto(env.BASE + '/' + name + '?source=' + env.SOURCE_ID);
    await legibleCharts(page);
    await page.screenshot({ path: env.SHOTS + '/' + name + '-1280.png', fullPage: true });
  }
});
"""


async def test_logs_in_the_browser(
    app: FastAPI,
    api: Api,
    clock: FrozenClock,
    playwright_runtime: browser.Runtime,
    tmp_path: Path,
) -> None:
    # the explorer's "last hour" ends at the app's clock: past what is sent during the run
    clock.set(datetime.now(UTC) + timedelta(minutes=10))
    source_id, token = await create_source(api, "app", platform="python")
    _, ticker_token = await create_source(api, "ticker", platform="python")
    now = datetime.now(UTC)
    await app.state.ctx.logs.append_metrics(
        [
            MetricPoint(
                source_id=source_id,
                team_id=api.team_id,
                dt=now - timedelta(minutes=n),
                name="queue_depth",
                value=float(n % 7),
            )
            for n in range(1, 30)
        ]
    )
    await add_person(app, email="admin@example.com", role="admin")
    await add_person(app, email="viewer@example.com", role="viewer")
    logger = logging.getLogger("watchpost-tests.console-logs")
    ticker = logging.getLogger("watchpost-tests.console-logs-ticks")
    for one in (logger, ticker):
        one.propagate = False
        one.setLevel(logging.INFO)
    stop = threading.Event()
    shots = Path(os.environ.get("WATCHPOST_SCREENSHOTS") or tmp_path / "shots")
    await asyncio.to_thread(shots.mkdir, parents=True, exist_ok=True)

    def ticking(handler: LogtailHandler) -> None:
        n = 0
        while not stop.wait(0.3):
            n += 1
            ticker.info("tick %d", n)
            handler.flush()

    # the server runs on this event loop: the handlers' blocking flush and close run in
    # threads, and both handlers are closed while the server still answers
    async with serving(app) as base:
        handler = LogtailHandler(source_token=token, host=base, flush_interval=0.05)
        ticks = LogtailHandler(source_token=ticker_token, host=base, flush_interval=0.05)
        logger.addHandler(handler)
        ticker.addHandler(ticks)
        thread = threading.Thread(target=ticking, args=(ticks,), daemon=True)
        try:
            logger.info("checkout done", extra={"order_id": 41})
            logger.error("payment declined", extra={"order_id": 42})
            logger.warning("stock low", extra={"order_id": 43})
            await asyncio.to_thread(handler.flush)
            thread.start()
            await run_spec(
                playwright_runtime,
                tmp_path / "spec",
                SPEC_HEAD + SPEC,
                tests=4,
                env={
                    "BASE": base,
                    "PASSWORD": TEST_PASSWORD,
                    "SHOTS": str(shots),
                    "ADMIN": "admin@example.com",
                    "VIEWER": "viewer@example.com",
                    "SOURCE_ID": str(source_id),
                },
                test_timeout_s=180,
                run_timeout_s=900,
            )
        finally:
            stop.set()
            if thread.is_alive():
                await asyncio.to_thread(thread.join)
            logger.removeHandler(handler)
            ticker.removeHandler(ticks)
            await asyncio.to_thread(handler.close)
            await asyncio.to_thread(ticks.close)
