"""In Chromium (SQLite and PostgreSQL): an admin edits an escalation policy into two steps
with JavaScript off (the steps editor's buttons are plain submits), then a monitor really
goes down (a local server answering 500, the check engine on the test's clock) and the policy
runs: step 1 notifies a webhook at once (a local receiver), step 2 e-mails a person
(aiosmtpd) only once the clock passes its 5 minutes. A responder takes an on-call shift by
the form; an admin's shift edit is refused beside its field; the pages (policy and urgency
groups, a calendar's settings and a shift's form among them) are axe-clean and fit 375 px; screenshots at 1280 and 375 px."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import user_id
from tests.factories.api import Api, data
from tests.factories.console import add_person, run_console_spec
from tests.factories.delivery import (
    advance,
    configure,
    create_member,
    create_webhook,
    deliverer_of,
    receiver,
    smtp_server,
)
from tests.factories.engine import engine_of, recording_server
from tests.factories.monitors import create_monitor
from watchpost.oncall.models import OnCallEvent
from watchpost.policies.models import Policy
from watchpost.probes.monitors import browser

EDIT_SPEC = r"""
const ids = JSON.parse(env.IDS);

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false });

  test('an admin makes the policy two steps with the form buttons', async ({ page }) => {
    await signIn(page, env.ADMIN);
    await page.goto(env.BASE + '/policies');
    await page.getByRole('link', { name: 'Main', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Main', level: 1 })).toBeVisible();
    await page.getByRole('link', { name: 'Edit Main' }).click();
    const first = page.getByRole('group', { name: 'Step 1: Tell people or services' });
    await first.getByLabel('Wait (minutes)').fill('0');
    await first.getByLabel('Ops hook').check();
    await first.getByLabel('The whole team').uncheck();
    // An instructions step added then removed; a second escalation step added, moved, kept.
    await page.getByLabel('Kind of step to add').selectOption('instructions');
    await page.getByRole('button', { name: 'Add a step' }).click();
    await expect(page.getByRole('group', { name: 'Step 2: Add instructions to the incident' })).toBeVisible();
    await expect(first.getByLabel('Ops hook')).toBeChecked();  // what was typed is kept
    await page.getByLabel('Instructions').fill('Look at the shop');
    await page.getByLabel('Kind of step to add').selectOption('escalation');
    await page.getByRole('button', { name: 'Add a step' }).click();
    await page.getByRole('button', { name: 'Move up step 3' }).click();
    await expect(page.getByRole('group', { name: 'Step 3: Add instructions to the incident' })).toBeVisible();
    await expect(page.getByLabel('Instructions')).toHaveValue('Look at the shop');
    await page.getByRole('button', { name: 'Remove step 3' }).click();
    await expect(page.getByLabel('Instructions')).toHaveCount(0);
    const second = page.getByRole('group', { name: 'Step 2: Tell people or services' });
    await second.getByLabel('Wait (minutes)').fill('five');
    await second.getByLabel('Bob Builder').check();
    await page.getByRole('button', { name: 'Save policy' }).click();
    // The domain's problem, beside its field, the rest kept.
    await expect(page.getByText('There is a problem')).toBeVisible();
    await expect(second.getByText(/Step 2: wait/)).toBeVisible();
    await expect(second.getByLabel('Bob Builder')).toBeChecked();
    await second.getByLabel('Wait (minutes)').fill('5');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await expect(page).toHaveURL(new RegExp('/policies/' + ids.policy + '$'));
    await expect(page.getByText('At once, notify webhook Ops hook; 5 min later, e-mail Bob Builder.')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Shop', exact: true })).toBeVisible();
  });
});
"""

PAGES_SPEC = r"""
const ids = JSON.parse(env.IDS);

async function look(page, path, heading, name) {
  await page.goto(env.BASE + path);
  await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/' + name + '-1280.png', fullPage: true });
  await phone(page);
  await page.reload();
  await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
  await noSideScroll(page);
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/' + name + '-375.png', fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}

test('the policy pages read well at 1280 and 375 px and pass axe', async ({ page }) => {
  await signIn(page, env.ADMIN);
  await look(page, '/policies', 'Escalation policies', 'policies');
  await expect(page.getByText('At once, notify webhook Ops hook; 5 min later, e-mail Bob Builder.')).toBeVisible();
  await look(page, '/policies/' + ids.policy, 'Main', 'policy');
  await look(page, '/policies/' + ids.policy + '/edit', 'Edit Main', 'policy-form');
  await look(page, '/policies/urgencies', 'Urgencies', 'urgencies');
  await look(page, '/policies/urgencies/new', 'New urgency', 'urgency-form');
  await look(page, '/policies/groups', 'Policy groups', 'policy-groups');
  await page.getByRole('link', { name: 'Night crew' }).click();
  await expect(page.getByRole('link', { name: 'Main', exact: true })).toBeVisible();
  await look(page, '/policies/groups/' + ids.group, 'Night crew', 'policy-group');
  await look(page, '/policies/urgency-groups', 'Urgency groups', 'urgency-groups');
});

test('the on-call and people pages read well at 1280 and 375 px and pass axe', async ({ page }) => {
  await signIn(page, env.ADMIN);
  await look(page, '/on-call', 'On-call', 'oncall');
  await look(page, '/on-call/default', 'Primary', 'oncall-calendar');
  await look(page, '/team/people/' + ids.bob, 'Bob Builder', 'person');
  await expect(page.getByText('in Primary').first()).toBeVisible();  // Bob's rotation days
  await look(page, '/on-call/default/edit', 'Settings of Primary', 'oncall-settings');
  await expect(page.getByText('it cannot be deleted')).toBeVisible();
  await look(page, '/on-call/default/events/' + ids.event + '/edit', 'Edit a shift', 'oncall-event');
  await page.getByLabel('Until (UTC)').fill('2025-12-01T00:00');
  await page.getByRole('button', { name: 'Save the shift' }).click();
  await expect(page.getByText('There is a problem')).toBeVisible();
  await expect(page.locator('#ends_at-error')).toBeVisible();
  await axe(page);
});

test('a responder takes a shift and sees it in the calendar', async ({ page }) => {
  await signIn(page, env.RESPONDER);
  await page.goto(env.BASE + '/on-call');
  await page.getByRole('link', { name: 'Primary' }).click();
  await page.getByLabel('From (UTC)').fill('2026-01-01T00:00');
  await page.getByLabel('Until (UTC)').fill('2026-01-02T00:00');
  await page.getByRole('button', { name: 'Take this shift' }).click();
  await expect(page.getByText('(override)').first()).toBeVisible();
  await expect(page.getByText('On call now')).toBeVisible();
  await expect(page.locator('dd').filter({ hasText: 'Rita Responder' }).first()).toBeVisible();
  await axe(page);
  await page.getByRole('link', { name: 'Rita Responder' }).first().click();
  await expect(page.getByRole('heading', { name: 'Rita Responder', level: 1 })).toBeVisible();
  await expect(page.getByText('in Primary').first()).toBeVisible();
});

test('the incident shows the policy at work', async ({ page }) => {
  await signIn(page, env.ADMIN);
  await page.goto(env.BASE + '/incidents/' + ids.incident);
  await expect(page.getByText('Webhook Ops hook: sent')).toBeVisible();
  await axe(page);
});
"""


async def test_a_policy_edited_in_the_form_runs_when_a_monitor_goes_down(
    app: FastAPI, api: Api, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    await add_person(app, email="ann@example.com", role="admin", name="Ann Admin")
    await add_person(app, email="rita@example.com", role="responder", name="Rita Responder")
    await create_member(app, "acme", "bob@example.com", "Bob Builder")
    bob = await user_id(app, "bob@example.com")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        async with recording_server() as site, receiver() as hook:
            site.status["/shop"] = 500
            quiet = {f"on_incident_{f}": False for f in ("started", "acknowledged", "resolved")}
            await create_webhook(api, hook.url("/ops"), name="Ops hook", **quiet)
            one = [{"type": "escalation", "step_members": [{"type": "entire_team"}]}]
            policy = data(await api.post("/api/v3/policies", {"name": "Main", "steps": one}), 201)
            await create_monitor(
                api,
                url=site.url("/shop"),
                pronounceable_name="Shop",
                confirmation_period=0,
                email=False,
                policy_id=policy["id"],
            )
            ids = {"policy": int(policy["id"]), "bob": bob}
            await run_console_spec(
                app,
                playwright_runtime,
                tmp_path / "edit",
                EDIT_SPEC,
                tests=1,
                env={"IDS": json.dumps(ids), "ADMIN": "ann@example.com"},
            )
            async with app.state.ctx.db.read_sessions() as db:
                [stored] = await db.scalars(select(Policy).where(Policy.id == ids["policy"]))
            assert [s["wait_before"] for s in stored.steps] == [0, 300]
            # The monitor goes down: the engine opens the incident, the policy runs.
            await engine_of(app).tick()
            worker = deliverer_of(app)
            await worker.tick()
            await worker.tick()
            assert [r.path for r in hook.received] == ["/ops"]  # step 1, at once
            assert mailbox.messages == []
            advance(app, 299)
            await worker.tick()
            await worker.tick()
            assert mailbox.messages == []  # step 2 waits its 5 minutes
            advance(app, 2)
            await worker.tick()
            await worker.tick()
            assert [m["To"] for m in mailbox.messages] == ["bob@example.com"]
            assert [r.path for r in hook.received] == ["/ops"]
            rotation = {
                "users": ["ann@example.com", "bob@example.com", "rita@example.com"],
                "rotation_length": 1,
                "rotation_interval": "day",
                "start_rotations_at": "2026-01-01T00:00:00Z",
                "end_rotations_at": "2026-03-01T00:00:00Z",
            }
            made = await api.post("/api/v2/on-calls/default/rotation", rotation)
            assert made.status_code in (200, 201), made.text
            group = data(await api.post("/api/v2/policy-groups", {"name": "Night crew"}), 201)
            joined = {"policy_group_id": int(group["id"])}
            assert (await api.patch(f"/api/v3/policies/{policy['id']}", joined)).status_code == 200
            ids["group"] = int(group["id"])
            shifts = (await api.get("/api/v2/on-calls/default/events")).json()["events"]
            ids["event"] = int(shifts[0]["id"])
            opened = (await api.get("/api/v2/incidents?resolved=false")).json()["data"]
            ids["incident"] = int(opened[0]["id"])
            await run_console_spec(
                app,
                playwright_runtime,
                tmp_path / "pages",
                PAGES_SPEC,
                tests=4,
                env={
                    "IDS": json.dumps(ids),
                    "ADMIN": "ann@example.com",
                    "RESPONDER": "rita@example.com",
                },
            )
    async with app.state.ctx.db.read_sessions() as db:
        [override] = await db.scalars(select(OnCallEvent).where(OnCallEvent.override.is_(True)))
    assert override.users == ["rita@example.com"]
