"""Notification channels and maintenance windows in Chromium, driven by labels and roles.

Apprise's Slack, Discord and Teams senders post to their services' fixed hosts
(hooks.slack.com, discord.com, *.logic.azure.com over https), so none can be aimed at a
local receiver; the proof uses the kind that can: ntfy, whose server is the form's "Server"
field, pointed at a local aiohttp receiver (http://127.0.0.1:<port>). The channel is built
from the form, "Send test" is pressed, and the request is seen arriving with the message.
Then a monitor of the team goes down (a real check by the engine against the receiver
answering 500) and its incident start is delivered to the same channel: every channel of a
team hears of every incident (docs/api.md, "Notification channels"), so no escalation
policy is needed for it. Then a maintenance window is made from its form. axe-core and
375 px on every page.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api
from tests.factories.console import add_person, run_console_spec
from tests.factories.delivery import Answer, deliverer_of, receiver
from tests.factories.engine import engine_of
from tests.factories.monitors import create_monitor
from watchpost.channels.models import NotificationChannel
from watchpost.probes.monitors import browser

SPEC = r"""
async function check(page, name) {
  await axe(page);
  await noSideScroll(page);
  await page.screenshot({ path: env.SHOTS + '/' + name + '-1280.png', fullPage: true });
  const size = page.viewportSize();
  await phone(page);
  await axe(page);
  await noSideScroll(page);
  await page.screenshot({ path: env.SHOTS + '/' + name + '-375.png', fullPage: true });
  await page.setViewportSize(size);
}

test('an ntfy channel is built from the form and its test arrives', async ({ page }) => {
  await signIn(page, 'olga@example.com');
  await page.goto(env.BASE + '/channels');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Notification channels');
  await page.getByRole('link', { name: 'New channel' }).click();
  await check(page, 'channel-new-slack');
  await page.getByLabel('Service').selectOption('ntfy');
  await expect(page.getByRole('group', { name: 'ntfy' })).toBeVisible();
  await page.getByLabel('Name', { exact: true }).fill('Phones');
  await page.getByLabel('Server').fill('http://127.0.0.1:' + env.HOOK_PORT);
  await page.getByLabel('Topic').fill('bad topic');
  await page.getByLabel('Priority').selectOption('high');
  await page.getByLabel('Access token', { exact: true }).fill('tk_browserSecret42');
  await page.getByRole('button', { name: 'Create channel' }).click();
  await expect(page.getByRole('alert').first()).toContainText('There is a problem');
  await expect(page.getByLabel('Topic')).toHaveValue('bad topic');
  await check(page, 'channel-error');
  await page.getByLabel('Topic').fill('ops-alerts');
  await page.getByLabel('Access token', { exact: true }).fill('tk_browserSecret42');
  await page.getByRole('button', { name: 'Create channel' }).click();
  await expect(page.getByRole('status')).toContainText('Channel created.');
  const row = page.getByRole('row').filter({ hasText: 'Phones' });
  await expect(row).toContainText('ntfy');
  await row.getByRole('button', { name: 'Send test to Phones' }).click();
  await expect(page.getByRole('status')).toContainText('Test sent to Phones');
  await expect(page.getByRole('main')).not.toContainText('tk_browserSecret42');
  await check(page, 'channels');

  await page.getByRole('link', { name: 'Edit Phones' }).click();
  await expect(page.getByLabel('Topic')).toHaveValue('ops-alerts');
  await expect(page.getByLabel('Access token', { exact: true })).toHaveValue('');
  await expect(page.getByText('Stored, not shown. Leave empty to keep it.')).toBeVisible();
  await check(page, 'channel-edit');
  await page.getByLabel('Name', { exact: true }).fill('On-call phones');
  await page.getByRole('button', { name: 'Save channel' }).click();
  await expect(page.getByRole('status')).toContainText('Channel saved.');
  await expect(page.getByRole('row').filter({ hasText: 'On-call phones' })).toBeVisible();
});

test('a maintenance window is made from its form', async ({ page }) => {
  await signIn(page, 'olga@example.com');
  await page.goto(env.BASE + '/maintenance-windows');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Maintenance windows');
  await page.getByRole('link', { name: 'New maintenance window' }).click();
  await page.getByLabel('Starts at').fill('02:00');
  await page.getByLabel('Ends at').fill('03:30');
  await page.getByLabel('Time zone').fill('Europe/Berlin');
  await page.getByLabel('Sat').check();
  await page.getByLabel('Sun').check();
  await page.getByLabel('Shop').check();
  await check(page, 'maintenance-new');
  await page.getByRole('button', { name: 'Create window' }).click();
  await expect(page.getByRole('status')).toContainText('Maintenance window created.');
  await expect(page.getByRole('main').getByRole('heading', { level: 2 }))
    .toHaveText('Sat, Sun, 02:00 to 03:30 Europe/Berlin');
  await expect(page.getByRole('link', { name: 'Shop' })).toBeVisible();
  await check(page, 'maintenance');
});
"""


async def test_channels_and_maintenance_in_a_browser(
    app: FastAPI, api: Api, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    await add_person(app, email="olga@example.com", role="owner", name="Olga Owner")
    async with receiver() as hook:
        shop = await create_monitor(
            api, url=hook.url("/shop"), pronounceable_name="Shop", confirmation_period=0
        )
        await run_console_spec(
            app,
            playwright_runtime,
            tmp_path,
            SPEC,
            tests=2,
            env={"HOOK_PORT": str(hook.port)},
        )
        published = [r for r in hook.received if r.method == "POST" and r.path != "/shop"]
        [test] = published
        assert test.json()["topic"] == "ops-alerts"
        assert test.json()["title"].startswith("Down: Test incident")
        assert test.headers["Authorization"] == "Bearer tk_browserSecret42"
        async with app.state.ctx.db.read_sessions() as db:
            [row] = await db.scalars(select(NotificationChannel))
        assert row.name == "On-call phones"
        assert "tk_browserSecret42" in app.state.ctx.box.decrypt(row.url_encrypted)

        # The monitor goes down (its window is on weekend nights only): the channel hears.
        hook.answer("/shop", *[Answer(500)] * 5)
        await engine_of(app).tick()
        await deliverer_of(app).tick()
        published = [r for r in hook.received if r.method == "POST" and r.path != "/shop"]
    assert len(published) == 2, [r.body for r in published]
    down = published[1].json()
    assert down["topic"] == "ops-alerts"
    assert down["title"] == "Down: Shop (monitor)", down
    assert shop["id"]
