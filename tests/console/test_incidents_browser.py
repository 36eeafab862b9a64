"""A monitor really going down and its incident acknowledged and resolved from the console,
in Chromium: a local HTTP server answers 500, the check engine (on the test's clock) opens
the incident, then people act on it by its page's buttons; a viewer sees no button; the
same with JavaScript off (plain form posts); a new incident appears in the open list without
a reload (the live stream); axe-core and 375 px screenshots of both pages."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.console import add_person, run_console_spec
from tests.factories.delivery import create_webhook, deliverer_of, receiver
from tests.factories.engine import engine_of, recording_server
from tests.factories.incidents import create_reported_incident
from tests.factories.monitors import create_monitor
from watchpost.probes.monitors import browser

SPEC = r"""
const ids = JSON.parse(env.IDS);

test('a responder acknowledges and resolves the incident of a monitor that went down', async ({ page }) => {
  await signIn(page, env.RESPONDER);
  await page.goto(env.BASE + '/incidents');
  await expect(page.getByRole('heading', { name: 'Incidents', level: 1 })).toBeVisible();
  const row = page.getByRole('row').filter({ hasText: env.DOWN_NAME });
  await expect(row.getByText('Ongoing')).toBeVisible();
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/incidents-1280.png', fullPage: true });
  await row.getByRole('link', { name: env.DOWN_NAME, exact: true }).click();
  await expect(page).toHaveURL(new RegExp('/incidents/' + ids.down + '$'));
  await expect(page.getByRole('heading', { name: env.DOWN_NAME, level: 1 })).toBeVisible();
  await expect(page.getByText('Status code')).toBeVisible();
  // Who was told: the webhook (its start, then the policy's first step), and what is next.
  await expect(page.getByText('Webhook Ops hook: sent')).toHaveCount(2);
  await expect(page.getByText('Next: step 2 of escalation policy Main')).toBeVisible();
  await expect(page.getByText('Tell webhook Ops hook — done')).toBeVisible();
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/incident-1280.png', fullPage: true });
  await page.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(page.getByText('Acknowledged by ' + env.RESPONDER).first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Acknowledge' })).toHaveCount(0);
  await expect(page.getByText('Next: step 2 of escalation policy Main')).toHaveCount(0);
  await page.getByLabel('Comment').fill('Restarting the shop');
  await page.getByRole('button', { name: 'Add comment' }).click();
  await expect(page.getByText('Restarting the shop')).toBeVisible();
  await page.getByRole('button', { name: 'Resolve' }).click();
  await expect(page.getByText('Resolved by ' + env.RESPONDER).first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Reopen' })).toBeVisible();
  await axe(page);
});

test('at 375 px both pages fit without sideways scrolling', async ({ page }) => {
  await phone(page);
  await signIn(page, env.RESPONDER);
  await page.goto(env.BASE + '/incidents');
  await expect(page.getByRole('link', { name: env.DOWN_NAME, exact: true })).toBeVisible();
  await noSideScroll(page);
  await page.screenshot({ path: env.SHOTS + '/incidents-375.png', fullPage: true });
  await page.goto(env.BASE + '/incidents/' + ids.down);
  await expect(page.getByRole('heading', { name: env.DOWN_NAME, level: 1 })).toBeVisible();
  await noSideScroll(page);
  await page.screenshot({ path: env.SHOTS + '/incident-375.png', fullPage: true });
  await axe(page);
});

test('a viewer reads the incident but has no button to act', async ({ page }) => {
  await signIn(page, env.VIEWER);
  await page.goto(env.BASE + '/incidents/' + ids.reported);
  await expect(page.getByRole('heading', { name: 'Checkout slow', level: 1 })).toBeVisible();
  await expect(page.getByText('Ongoing').first()).toBeVisible();
  await expect(page.getByRole('button', { name: 'Acknowledge' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Resolve' })).toHaveCount(0);
  await expect(page.getByLabel('Comment')).toHaveCount(0);
});

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false });

  test('acknowledging is a plain form post', async ({ page }) => {
    await signIn(page, env.RESPONDER);
    await page.goto(env.BASE + '/incidents');
    await page.getByRole('navigation', { name: 'Status' }).getByRole('link', { name: 'Open' }).click();
    await expect(page).toHaveURL(/status=open/);
    await expect(page.getByRole('link', { name: env.DOWN_NAME, exact: true })).toHaveCount(0);
    await page.getByRole('link', { name: 'Checkout slow', exact: true }).click();
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await expect(page.getByText('Acknowledged by ' + env.RESPONDER).first()).toBeVisible();
    await page.goto(env.BASE + '/incidents?status=acknowledged');
    await page.getByText('Filter by monitor, heartbeat or time').click();
    await page.getByLabel('Started').selectOption('24h');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect(page).toHaveURL(/status=acknowledged.*period=24h/);
    await expect(page.getByRole('link', { name: 'Checkout slow', exact: true })).toBeVisible();
    await expect(page.getByText('1 incident', { exact: true })).toBeVisible();
  });
});

test('a new incident appears in the open list without a reload', async ({ page }) => {
  await signIn(page, env.RESPONDER);
  await page.goto(env.BASE + '/incidents?status=open');
  await expect(page.getByText('Checkout slow')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Payments failing', exact: true })).toHaveCount(0);
  await page.evaluate(() => { window.notReloaded = true; });
  // Let the page's event stream take its first look at the team before anything changes.
  await page.waitForTimeout(3000);
  const made = await fetch(env.BASE + '/api/v2/incidents', {
    method: 'POST',
    headers: { 'Authorization': 'Bearer ' + env.TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Payments failing', summary: 'Card payments time out' }),
  });
  expect(made.status).toBe(201);
  await expect(page.getByRole('link', { name: 'Payments failing', exact: true }))
    .toBeVisible({ timeout: 15000 });
  expect(await page.evaluate(() => window.notReloaded)).toBe(true);
});
"""


async def test_a_monitor_goes_down_and_its_incident_is_handled_in_the_console(
    app: FastAPI, api: Api, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    async with recording_server() as site, receiver() as hook:
        site.status["/shop"] = 500
        ops = await create_webhook(api, hook.url("/ops"), name="Ops hook")
        steps = [
            {"type": "escalation", "step_members": [{"type": "webhook", "id": int(ops["id"])}]},
            {"type": "escalation", "wait_before": 900, "step_members": [{"type": "entire_team"}]},
        ]
        policy = data(await api.post("/api/v3/policies", {"name": "Main", "steps": steps}), 201)
        await create_monitor(
            api,
            url=site.url("/shop"),
            pronounceable_name="Shop",
            confirmation_period=0,
            email=False,
            policy_id=policy["id"],
        )
        await engine_of(app).tick()
        for _ in range(2):
            await deliverer_of(app).tick()
        assert [r.path for r in hook.received] == ["/ops", "/ops"]  # its start, and step 1
    opened = (await api.get("/api/v2/incidents?resolved=false")).json()["data"]
    assert len(opened) == 1, opened  # the engine opened it: the monitor is down
    down = opened[0]
    assert down["attributes"]["response_options"]["status_code"] == "500"
    reported = await create_reported_incident(api, email=False)
    await add_person(app, email="ann@example.com", role="responder", name="Ann")
    await add_person(app, email="vera@example.com", role="viewer", name="Vera")
    await run_console_spec(
        app,
        playwright_runtime,
        tmp_path,
        SPEC,
        tests=5,
        env={
            "IDS": f'{{"down": {down["id"]}, "reported": {reported["id"]}}}',
            "DOWN_NAME": down["attributes"]["name"],
            "RESPONDER": "ann@example.com",
            "VIEWER": "vera@example.com",
            "TOKEN": api.token,
        },
    )
    incident = data(await api.get(f"/api/v2/incidents/{down['id']}"))["attributes"]
    assert incident["status"] == "resolved"
    assert incident["acknowledged_by"] == incident["resolved_by"] == "ann@example.com"
    later = data(await api.get(f"/api/v2/incidents/{reported['id']}"))["attributes"]
    assert later["acknowledged_by"] == "ann@example.com"
    assert (tmp_path / "shots" / "incident-375.png").stat().st_size > 0
