"""The pickers in Chromium (SQLite and PostgreSQL), with JavaScript off: in a team of 1,001
monitors the maintenance form says its list is cut, Find narrows it to the 1,001st, which is
ticked and saved; a shift's people are ticked among the team's members by name and e-mail
and saved; the calendar moves to later weeks and back, an odd `?from=` says so beside the
date. axe-core and 375 px on each screen in the light and the dark scheme, screenshots of
both at 1280 and 375 px."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import FastAPI
from sqlalchemy import select

from tests.console.picker_support import many_monitors
from tests.factories.api import Api, data
from tests.factories.console import add_person, run_console_spec
from watchpost.monitors.models import Monitor
from watchpost.oncall.models import OnCallEvent
from watchpost.probes.monitors import browser

SPEC = r"""
const ids = JSON.parse(env.IDS);

async function shots(page, name) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const suffix = scheme === 'dark' ? '-dark' : '';
    await page.setViewportSize({ width: 1280, height: 900 });
    await axe(page);
    await page.screenshot({ path: env.SHOTS + '/' + name + suffix + '-1280.png' });
    await phone(page);
    await noSideScroll(page);
    await axe(page);
    await page.screenshot({ path: env.SHOTS + '/' + name + suffix + '-375.png' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

async function withoutJavaScript(browser) {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  page.setDefaultTimeout(30000);
  await signIn(page, env.ADMIN);
  return [context, page];
}

test('the 1,001st monitor is found, ticked and saved in a window', async ({ browser, page }) => {
  const [context, nojs] = await withoutJavaScript(browser);
  await nojs.goto(env.BASE + '/maintenance-windows/new');
  await expect(nojs.getByText('Showing the first 1,000 of 1,001 — type in Find to narrow')).toBeVisible();
  await expect(nojs.getByLabel('Service 1001', { exact: true })).toHaveCount(0);
  await nojs.getByLabel('Find', { exact: true }).fill('service 1001');
  await nojs.getByRole('button', { name: 'Find', exact: true }).click();
  await expect(nojs.getByLabel('Find', { exact: true })).toHaveValue('service 1001');
  await expect(nojs.getByRole('checkbox')).toHaveCount(8);  // 7 days and the one found
  await nojs.getByLabel('Service 1001', { exact: true }).check();
  await nojs.getByLabel('Starts at').fill('02:00');
  await nojs.getByLabel('Ends at').fill('03:00');
  await nojs.getByRole('button', { name: 'Create window' }).click();
  await expect(nojs.getByRole('status')).toHaveText('Maintenance window created.');
  await expect(nojs.getByText('Service 1001')).toBeVisible();
  await context.close();
  // The narrowed form as a person sees it (axe needs JavaScript in the page).
  await signIn(page, env.ADMIN);
  await page.goto(env.BASE + '/maintenance-windows/new?find=service+100');
  await expect(page.getByText('Showing the first')).toHaveCount(0);
  await shots(page, 'maintenance-picker');
});

test('a shift is given to members ticked by name; the weeks move', async ({ browser, page }) => {
  const [context, nojs] = await withoutJavaScript(browser);
  await nojs.goto(env.BASE + '/on-call/default/events/' + ids.event + '/edit');
  const ann = nojs.getByLabel('Ann Early (ann@example.com)');
  await expect(ann).toBeChecked();
  await ann.uncheck();
  await nojs.getByText('Or type e-mail addresses').click();
  await nojs.getByLabel('Members\u2019 e-mail addresses').fill('stranger@example.com');
  await nojs.getByRole('button', { name: 'Save the shift' }).click();
  await expect(nojs.getByText('There is a problem')).toBeVisible();
  await expect(nojs.getByRole('group', { name: 'Who is on call' })).toHaveAccessibleDescription(/stranger@example.com/);
  await expect(nojs.getByLabel('Members\u2019 e-mail addresses')).toHaveValue('stranger@example.com');
  await nojs.getByLabel('Members\u2019 e-mail addresses').fill('');
  await nojs.getByLabel('Bob Builder (bob@example.com)').check();
  await nojs.getByRole('button', { name: 'Save the shift' }).click();
  await expect(nojs.getByRole('heading', { name: 'The next four weeks' })).toBeVisible();
  await expect(nojs.getByRole('link', { name: 'Bob Builder' }).first()).toBeVisible();
  await nojs.getByRole('link', { name: 'Later four weeks' }).click();
  await expect(nojs.getByRole('heading', { name: 'Four weeks from Thu 29 Jan 2026' })).toBeVisible();
  expect(nojs.url()).toContain('from=2026-01-29');
  await nojs.getByRole('link', { name: 'From today' }).click();
  await expect(nojs.getByRole('heading', { name: 'The next four weeks' })).toBeVisible();
  await context.close();
  await signIn(page, env.ADMIN);
  await page.goto(env.BASE + '/on-call/default/events/' + ids.event + '/edit');
  await expect(page.getByLabel('Bob Builder (bob@example.com)')).toBeChecked();
  await shots(page, 'oncall-event-members');
  await page.goto(env.BASE + '/on-call/default?from=2026-01-29');
  await shots(page, 'oncall-later-weeks');
  await page.goto(env.BASE + '/on-call/default?from=someday');
  await expect(page.getByLabel('Show four weeks from')).toHaveAccessibleDescription(/YYYY-MM-DD/);
  await shots(page, 'oncall-odd-from');
});
"""


async def test_pickers_in_the_browser(
    app: FastAPI, api: Api, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    await add_person(app, email="adam@example.com", role="admin", name="Adam Admin")
    await add_person(app, email="ann@example.com", role="responder", name="Ann Early")
    await add_person(app, email="bob@example.com", role="responder", name="Bob Builder")
    await many_monitors(app, api.team_id, 1001)
    shift = {
        "starts_at": "2026-01-02T00:00:00Z",
        "ends_at": "2026-01-03T00:00:00Z",
        "users": ["ann@example.com"],
    }
    event = data(await api.post("/api/v2/on-calls/default/events", shift), 201)
    await run_console_spec(
        app,
        playwright_runtime,
        tmp_path,
        SPEC,
        tests=2,
        env={"ADMIN": "adam@example.com", "IDS": json.dumps({"event": int(event["id"])})},
    )
    async with app.state.ctx.db.read_sessions() as db:
        windowed = list(
            await db.scalars(
                select(Monitor.pronounceable_name).where(Monitor.maintenance_from.is_not(None))
            )
        )
        [stored] = await db.scalars(select(OnCallEvent))
    assert windowed == ["Service 1001"]
    assert stored.users == ["bob@example.com"]
