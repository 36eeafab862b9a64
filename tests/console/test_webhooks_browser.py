"""Outgoing webhooks in Chromium, driven as a person does: an admin creates a webhook in the
form (its signing secret shown once), presses Send test and sees the local aiohttp receiver's
answer; a monitor really goes down (the check engine against a server answering 500), the
delivery worker sends the incident, the receiver fails it once, the log shows the failure,
Retry queues it again and the log shows it delivered; the delivery unfolds (no JavaScript
needed: <details>) to both attempts, the 500 and the 200, with their durations, in light
and dark and at 375 px. The integrations pages too (an incoming
webhook's rules edited as rows at 375 px); axe-core
on every page, no sideways scroll at 375 px, screenshots at 1280 and 375 px; Rotate secret
with JavaScript off (the server's own confirmation)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from pathlib import Path

from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api, data
from tests.factories.console import add_person, run_console_spec
from tests.factories.delivery import Answer, deliverer_of, receiver
from tests.factories.engine import engine_of, recording_server
from watchpost.delivery.models import Delivery
from watchpost.probes.monitors import browser

SPEC = r"""
test('an admin creates a webhook, tests it, and retries a failed incident delivery', async ({ page }) => {
  await signIn(page, env.ADMIN);
  await page.goto(env.BASE + '/webhooks');
  await expect(page.getByRole('heading', { name: 'Outgoing webhooks', level: 1 })).toBeVisible();
  await axe(page);
  await page.getByRole('link', { name: 'New webhook' }).click();
  await expect(page.getByText('fires nothing until at least one event is chosen')).toBeVisible();
  await expect(page.getByLabel('Incident started')).toBeChecked();
  await expect(page.getByLabel('Incident resolved')).toBeChecked();
  await expect(page.getByLabel('Comment added')).not.toBeChecked();
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/webhook-new-1280.png', fullPage: true });
  await page.getByLabel('Name', { exact: true }).fill('Ops hook');
  await page.getByLabel(/^URL/).fill(env.RECEIVER);
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByText('shown only this once')).toBeVisible();
  const secret = (await page.locator('#signing-secret').textContent()).trim();
  expect(secret).toMatch(/^whsec_/);
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/webhook-created-1280.png', fullPage: true });

  await page.getByRole('button', { name: 'Send test' }).click();
  await expect(page.getByRole('heading', { name: 'Test result: delivered' })).toBeVisible();
  await expect(page.getByText('The receiver answered HTTP 200')).toBeVisible();
  const log = page.locator('table.delivery-log');
  await expect(log.getByText('Delivered')).toHaveCount(1);
  expect(await page.content()).not.toContain(secret);
  await axe(page);

  // A monitor that really goes down: its incident goes to the webhook, which answers 500.
  const made = await fetch(env.BASE + '/api/v2/monitors', {
    method: 'POST',
    headers: { 'Authorization': 'Bearer ' + env.TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: env.SHOP, monitor_type: 'status', pronounceable_name: 'Shop',
      confirmation_period: 0, email: false }),
  });
  expect(made.status).toBe(201);
  await expect(async () => {
    await page.reload();
    await expect(log.locator('td.answer', { hasText: 'HTTP 500' })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 60000 });
  await expect(log.getByRole('cell', { name: /started incident/ })).toBeVisible();
  await expect(log.getByRole('button', { name: /^Retry/ })).toHaveCount(1);
  await expect(log.locator('td.answer').getByText('down for maintenance')).toBeHidden();  // inside its <details>
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/webhook-failed-1280.png', fullPage: true });
  await log.getByRole('button', { name: /^Retry/ }).click();
  await expect(page.getByText('Queued again')).toBeVisible();
  await expect(async () => {
    await page.reload();
    await expect(log.getByText('Delivered')).toHaveCount(2, { timeout: 1000 });
  }).toPass({ timeout: 60000 });
  await expect(log.getByRole('button', { name: /^Retry/ })).toHaveCount(0);
  await expect(log.getByText('(2 attempts)')).toBeVisible();
  expect(await page.content()).not.toContain(secret);
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/webhook-1280.png', fullPage: true });

  // The incident's delivery unfolds to its two attempts, newest first: the retry's 200, then
  // the 500 that scheduled it, each with its duration.
  const attempts = log.locator('details.attempts').filter({ hasText: '2 attempts' });
  const tries = attempts.locator('li.attempt');
  await expect(tries.first()).toBeHidden();
  await attempts.getByText('2 attempts').click();
  await expect(tries).toHaveCount(2);
  await expect(tries.nth(0)).toContainText('Attempt 2');
  await expect(tries.nth(0)).toContainText('HTTP 200');
  await expect(tries.nth(0)).toContainText('Next retry: none');
  await expect(tries.nth(1)).toContainText('Attempt 1');
  await expect(tries.nth(1)).toContainText('HTTP 500');
  await expect(tries.nth(1).getByText('down for maintenance')).toBeVisible();
  await expect(tries.nth(1)).toContainText(/Next retry: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
  for (const n of [0, 1]) await expect(tries.nth(n)).toContainText(/Duration: \d+ ms/);
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/webhook-attempts-1280.png', fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/webhook-attempts-dark-1280.png', fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  await phone(page);
  await expect(tries).toHaveCount(2);
  await noSideScroll(page);
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/webhook-attempts-375.png', fullPage: true });
});

test('at 375 px the webhook and integrations pages fit without sideways scrolling', async ({ page }) => {
  await phone(page);
  await signIn(page, env.ADMIN);
  for (const path of ['/webhooks', '/webhooks/' + env.WEBHOOK_ID, '/webhooks/new',
                      '/integrations', '/integrations/incoming/' + env.INCOMING_ID,
                      '/integrations/incoming/new', '/integrations/pagerduty/' + env.PAGERDUTY_ID]) {
    await page.goto(env.BASE + path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await noSideScroll(page);
    await axe(page);
    const name = path.replace(/^\//, '').replace(/\//g, '-');
    await page.screenshot({ path: env.SHOTS + '/' + name + '-375.png', fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(env.BASE + '/integrations/incoming/' + env.INCOMING_ID);
  await expect(page.getByText('curl -X POST')).toBeVisible();
  await page.screenshot({ path: env.SHOTS + '/integration-incoming-1280.png', fullPage: true });
  await page.goto(env.BASE + '/integrations');
  await page.screenshot({ path: env.SHOTS + '/integrations-1280.png', fullPage: true });
});

test('at 375 px the incoming webhook rules are edited as rows', async ({ page }) => {
  await phone(page);
  await signIn(page, env.ADMIN);
  await page.goto(env.BASE + '/integrations/incoming/' + env.INCOMING_ID + '/edit');
  await expect(page.getByRole('heading', { name: 'How a request is matched' })).toBeVisible();
  await page.getByLabel('Requests that start an incident').selectOption('all');
  await page.getByRole('button', { name: 'Add a rule to rules to start an incident' }).click();
  const rule = page.getByRole('group', { name: 'Rule 1' });
  await rule.getByLabel('Looks at').selectOption('header');
  await rule.getByLabel('Name or JSON path').fill('X-Source');
  await rule.getByLabel('Holds when the value').selectOption('contains');
  await rule.getByLabel('Text or regular expression').fill('grafana');
  await page.getByRole('button', { name: 'Set the incident title' }).click();
  await expect(rule.getByLabel('Name or JSON path')).toHaveValue('X-Source');  // kept
  const title = page.getByRole('group', { name: 'Incident title' });
  await title.getByLabel('Name or JSON path').fill('');
  await page.getByRole('button', { name: 'Save incoming webhook' }).click();
  await expect(page.getByRole('heading', { name: 'There is a problem' })).toBeVisible();
  await expect(title.getByText('target_field is required')).toBeVisible();
  await noSideScroll(page);
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/integration-incoming-rules-375.png', fullPage: true });
  await title.getByLabel('Name or JSON path').fill('alert.title');
  await page.getByRole('button', { name: 'Save incoming webhook' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await expect(page.locator('#curl-example')).toContainText("-H 'X-Source: grafana'");
  await noSideScroll(page);
  await axe(page);
});

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false });

  test('rotating the secret asks on its own page, then shows the new secret once', async ({ page }) => {
    await signIn(page, env.ADMIN);
    await page.goto(env.BASE + '/webhooks/' + env.WEBHOOK_ID);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await expect(page.getByRole('heading', { name: /Rotate the signing secret/ })).toBeVisible();
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await expect(page.getByText('The signing secret was rotated.')).toBeVisible();
    const secret = (await page.locator('#signing-secret').textContent()).trim();
    await page.goto(env.BASE + '/webhooks/' + env.WEBHOOK_ID);
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Comment added').check();
    await page.getByRole('button', { name: 'Save webhook' }).click();
    await expect(page.getByText('Saved.')).toBeVisible();
    await expect(page.getByText('Comment added').first()).toBeVisible();
  });

});
"""


async def _keep_working(app: FastAPI) -> None:
    """The check engine and the delivery worker, as `serve` runs them (on the test's
    frozen clock: a retry is due only when Retry makes it so)."""
    engine, deliverer = engine_of(app), deliverer_of(app)
    while True:
        try:
            await engine.tick()
            await deliverer.tick()
        except Exception:  # keep going, as the real loops do; the spec's checks fail instead
            logging.getLogger(__name__).exception("a background tick failed")
        await asyncio.sleep(0.3)


async def test_webhooks_in_chromium(
    app: FastAPI, api: Api, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    async with recording_server() as site, receiver() as hook:
        site.status["/shop"] = 500
        hook.answer("/hook", Answer(status=200), Answer(status=500, body="down for maintenance"))
        await add_person(app, email="ann@example.com", role="admin", name="Ann")
        # Objects for the 375 px and JavaScript-off tests (made through the API).
        other = data(
            await api.post(
                "/api/v2/outgoing-webhooks",
                {"url": hook.url("/other"), "trigger_type": "incident_change", "name": "Other"},
            ),
            201,
        )
        incoming = data(await api.post("/api/v2/incoming-webhooks", {"name": "Grafana"}), 201)
        pagerduty = data(
            await api.post(
                "/api/v2/pager-duty-webhooks",
                {"name": "PD", "key": "abc123", "severity": "critical"},
            ),
            201,
        )
        worker = asyncio.create_task(_keep_working(app))
        try:
            await run_console_spec(
                app,
                playwright_runtime,
                tmp_path,
                SPEC,
                tests=4,
                env={
                    "ADMIN": "ann@example.com",
                    "RECEIVER": hook.url("/hook"),
                    "SHOP": site.url("/shop"),
                    "TOKEN": api.token,
                    "WEBHOOK_ID": str(other["id"]),
                    "INCOMING_ID": str(incoming["id"]),
                    "PAGERDUTY_ID": str(pagerduty["id"]),
                },
            )
        finally:
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await worker
        sent = hook.at("/hook")
    # The receiver saw the test, the incident's failed attempt and its retry, all signed.
    assert [request.json()["event"] for request in sent] == ["started"] * 3
    ids = [request.json()["data"]["id"] for request in sent]
    assert ids[0] == "0" and ids[1] == ids[2] != "0"  # the test event, then the incident's
    assert sent[1].headers["webhook-id"] == sent[2].headers["webhook-id"]
    assert all("webhook-signature" in request.headers for request in sent)
    async with app.state.ctx.db.read_sessions() as db:
        states = [
            (row.state, row.attempts)
            for row in await db.scalars(
                select(Delivery).where(Delivery.channel == "webhook").order_by(Delivery.id)
            )
            if row.webhook_id != int(other["id"])
        ]
    assert states == [("succeeded", 1), ("succeeded", 2)]
    shots = Path(os.environ.get("WATCHPOST_SCREENSHOTS") or tmp_path / "shots")
    assert (shots / "webhook-failed-1280.png").stat().st_size > 0
