"""The status page editor in Chromium (SQLite and PostgreSQL): a page with two sections, a
resource moved with JavaScript turned off (plain forms), a report posted and seen on the
public page; a section renamed and a resource marked down by incidents matching a metadata
rule (its rows added without JavaScript, the API's error beside the rule first), the public
page honouring it; axe-core and 375 px on each screen in the light and the dark scheme,
screenshots of both at 1280 and 375 px."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.console import add_person, run_console_spec
from tests.factories.heartbeats import create_heartbeat
from watchpost.clock import FrozenClock
from watchpost.probes.monitors import browser

SPEC = r"""
async function shots(page, name) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const suffix = scheme === 'dark' ? '-dark' : '';
    await page.setViewportSize({ width: 1280, height: 900 });
    await axe(page);
    await page.screenshot({ path: env.SHOTS + '/' + name + suffix + '-1280.png', fullPage: true });
    await phone(page);
    await noSideScroll(page);
    await axe(page);
    await page.screenshot({ path: env.SHOTS + '/' + name + suffix + '-375.png', fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

function names(page) {
  return page.locator('ol.sp-resources li strong').allTextContents();
}

test('build, reorder without JavaScript, report, see it in public', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  await signIn(page, env.EMAIL);
  await page.goto(env.BASE + '/status-pages');
  await expect(page.getByRole('heading', { name: 'Status pages', level: 1 })).toBeVisible();
  await page.getByRole('link', { name: 'Acme status' }).click();
  await expect(page.getByRole('heading', { name: 'Acme status', level: 1 })).toBeVisible();

  // A second section, then a resource added to it through the form.
  await page.getByLabel('Section heading').fill('Background jobs');
  await page.getByRole('button', { name: 'Add section' }).click();
  await expect(page.getByRole('heading', { name: 'Background jobs', level: 3 })).toBeVisible();
  await page.getByLabel('What it shows').selectOption({ label: 'Nightly backup' });
  await page.getByLabel('Widget').selectOption('plain');
  await page.getByLabel('Section', { exact: true }).selectOption({ label: 'Background jobs' });
  await page.getByRole('button', { name: 'Add resource' }).click();
  await expect(page.getByRole('status')).toHaveText('Resource added.');
  expect(await names(page)).toEqual(['Website', 'Shop', 'Nightly backup']);
  await page.screenshot({ path: env.SHOTS + '/status-page-editor-nojs.png', fullPage: true });

  // Move down, with JavaScript off: a plain form post (the list is one form).
  await page.getByRole('button', { name: 'Move down Website' }).click();
  await expect(page.getByRole('status')).toHaveText('Moved.');
  expect(await names(page)).toEqual(['Shop', 'Website', 'Nightly backup']);
  await expect(page.locator('ol.sp-resources li strong').first()).toHaveText('Shop');
  // Down from the bottom of a section: the top of the next one.
  await page.getByRole('button', { name: 'Move down Website' }).click();
  await expect(page.getByRole('status')).toHaveText('Moved.');
  expect(await names(page)).toEqual(['Shop', 'Website', 'Nightly backup']);
  const second = page.locator('section.sp-section').nth(1);
  await expect(second.getByRole('listitem')).toHaveCount(2);

  // A report, with an error first.
  await page.getByRole('link', { name: 'Reports and maintenance' }).click();
  await page.getByRole('link', { name: 'New report' }).click();
  await page.getByLabel('Message').fill('Checkout fails for some.');
  await page.getByRole('button', { name: 'Post report' }).click();
  await expect(page.getByRole('heading', { name: 'There is a problem' })).toBeVisible();
  await expect(page.getByLabel('Title', { exact: true })).toHaveAccessibleDescription(/Give the report a title/);
  await expect(page.getByLabel('Message')).toHaveValue('Checkout fails for some.');
  await page.screenshot({ path: env.SHOTS + '/status-report-error-nojs.png', fullPage: true });
  await page.getByLabel('Title', { exact: true }).fill('Checkout errors');
  await page.getByLabel('Shop', { exact: true }).selectOption('downtime');
  await page.getByRole('button', { name: 'Post report' }).click();
  await expect(page.getByRole('status')).toHaveText('Report posted.');
  await page.screenshot({ path: env.SHOTS + '/status-report-nojs.png', fullPage: true });
  // Its update edited (its own form, without JavaScript).
  await page.getByRole('link', { name: /^Edit the update of/ }).click();
  await page.getByLabel('Message').fill('Checkout fails for some cards.');
  await page.getByRole('button', { name: 'Save the update' }).click();
  await expect(page.getByRole('status')).toHaveText('Update saved.');

  // The public page shows it.
  await page.goto(env.BASE + '/status/acme-status');
  await expect(page.getByText('Checkout errors').first()).toBeVisible();
  await expect(page.getByText('Checkout fails for some cards.').first()).toBeVisible();
  await context.close();
});

test('the list, settings and subscribers fit a phone; a drop reorders with JavaScript', async ({ page }) => {
  await signIn(page, env.EMAIL);
  await page.goto(env.BASE + '/status-pages');
  await shots(page, 'status-pages');
  await page.getByRole('link', { name: 'Acme status' }).click();
  const id = page.url().split('/').pop();
  await page.goto(env.BASE + '/status-pages/' + id + '/settings');
  await expect(page.getByLabel('Subdomain')).toHaveValue('acme-status');
  // The server is known by its address only here: an A record (a CNAME cannot name one).
  await expect(page.getByText('status.acme.example. A 127.0.0.1', { exact: true })).toBeVisible();
  await shots(page, 'status-page-settings');
  await page.goto(env.BASE + '/status-pages/' + id + '/subscribers');
  await shots(page, 'status-page-subscribers');
  await page.goto(env.BASE + '/status-pages/' + id + '/reports/new');
  await shots(page, 'status-report-new');
  await page.goto(env.BASE + '/status-pages/' + id + '/reports');
  await shots(page, 'status-reports');
  await page.goto(env.BASE + '/status-pages/' + id);
  await shots(page, 'status-page-editor');
  // The drag on a page of its own (the other test reorders Acme's at the same time).
  await page.goto(env.BASE + '/status-pages');
  await page.getByRole('link', { name: 'Beta status' }).click();
  const first = page.locator('ol.sp-resources').first();
  await expect(first.locator('li strong').first()).toHaveText('Website');
  await first.locator('li').nth(1).dragTo(first.locator('li').nth(0));
  await expect(page.locator('ol.sp-resources').first().locator('li strong').first()).toHaveText('Shop');
});

function shownState(page, name) {
  // The public page's (and the preview's) status of the resource shown under that name.
  return page.locator('li', { has: page.locator('.name', { hasText: name }) }).locator('.st');
}

test('rename a section, mark a resource down by metadata, see the public page honour it', async ({ browser }) => {
  // The flow without JavaScript: the rule's rows are added by plain form posts.
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  await signIn(page, env.EMAIL);
  await page.goto(env.BASE + '/status-pages');
  await page.getByRole('link', { name: 'Gamma status' }).click();
  const editor = page.url();
  // Before: the open incident of each heartbeat marks it down (any incident).
  await page.goto(editor + '/preview');
  await expect(shownState(page, 'Billing')).toHaveText('Downtime');
  await page.goto(editor);

  await page.getByRole('link', { name: 'Rename section Jobs' }).click();
  await expect(page.getByLabel('Section heading')).toHaveValue('Jobs');
  await page.getByLabel('Section heading').fill('Background jobs');
  await page.getByRole('button', { name: 'Save the section' }).click();
  await expect(page.getByRole('status')).toHaveText('Section renamed.');
  await expect(page.getByRole('heading', { name: 'Background jobs', level: 3 })).toBeVisible();

  await page.getByRole('link', { name: 'Edit Billing' }).click();
  await expect(page.getByRole('heading', { name: 'Edit Billing', level: 1 })).toBeVisible();
  // The matching mode without a rule: the API's own error beside the rule.
  await page.getByLabel('Marked down by').selectOption('incident_matching_metadata');
  await page.getByRole('button', { name: 'Save the resource' }).click();
  await expect(page.getByRole('heading', { name: 'There is a problem' })).toBeVisible();
  const rule = page.locator('#mark_as_down_metadata_rule');
  await expect(rule.locator('.field-error').first()).toContainText(
    'mark_as_down_metadata_rule is required when mark_as_down_for is incident_matching_metadata');
  await expect(page.getByLabel('Marked down by')).toHaveValue('incident_matching_metadata');
  await rule.getByLabel('Metadata key').fill('owner');
  await rule.getByRole('button', { name: 'Add a value to the rule for down' }).click();
  await expect(rule.getByLabel('Metadata key')).toHaveValue('owner');
  await rule.getByLabel('Value', { exact: true }).fill('payments');
  await page.screenshot({ path: env.SHOTS + '/status-resource-rule-nojs.png', fullPage: true });
  await page.getByRole('button', { name: 'Save the resource' }).click();
  await expect(page.getByRole('status')).toHaveText('Resource saved.');

  // After: Billing's incident (owner billing) no longer marks it; Payments' (owner payments,
  // the same rule, set through the API) does.
  await page.goto(env.BASE + '/status/gamma');
  await expect(shownState(page, 'Payments')).toHaveText('Downtime');
  await expect(shownState(page, 'Billing')).toHaveText('Operational');
  await expect(page.getByRole('heading', { name: 'Background jobs' })).toBeVisible();
  await context.close();

  // The two forms (the resource's with a removed value's error): axe, 375 px, both schemes.
  const lit = await browser.newContext();
  const shot = await lit.newPage();
  shot.setDefaultTimeout(20000);
  await signIn(shot, env.EMAIL);
  await shot.goto(editor);
  await shot.getByRole('link', { name: 'Edit Billing' }).click();
  await expect(shot.locator('#mark_as_down_metadata_rule-0-value')).toHaveValue('payments');
  await shot.getByRole('button', { name: 'Remove value 1 of the rule for down' }).click();
  await expect(shot.locator('#mark_as_down_metadata_rule-0-value')).toHaveCount(0);
  await shot.getByRole('button', { name: 'Save the resource' }).click();
  await expect(shot.getByRole('heading', { name: 'There is a problem' })).toBeVisible();
  await shots(shot, 'status-resource-edit-error');
  await shot.goto(editor);
  await shot.getByRole('link', { name: 'Rename section Background jobs' }).click();
  await shots(shot, 'status-section-edit');
  await lit.close();
});
"""


async def _gamma(api: Api, client: httpx.AsyncClient, clock: FrozenClock) -> None:
    """A page whose two heartbeats each have an open incident, their metadata `owner`
    payments and billing; Payments is marked down by incidents of owner payments only."""
    page = data(
        await api.post(
            "/api/v2/status-pages", {"subdomain": "gamma", "company_name": "Gamma status"}
        ),
        201,
    )
    base = f"/api/v2/status-pages/{page['id']}"
    section = data(await api.post(f"{base}/sections", {"name": "Jobs"}), 201)
    rule = {"key": "owner", "values": [{"value": "payments"}]}
    for name in ("Payments", "Billing"):
        made = await create_heartbeat(api, name=name)
        owner = {"owner_type": "Heartbeat", "owner_id": made.id, "key": "owner"}
        data(
            await api.post("/api/v3/metadata", {**owner, "values": [{"value": name.lower()}]}), 201
        )
        body: dict[str, Any] = {
            "status_page_section_id": int(section["id"]),
            "resource_type": "Heartbeat",
            "resource_id": made.id,
            "widget_type": "plain",
        }
        if name == "Payments":
            body |= {
                "mark_as_down_for": "incident_matching_metadata",
                "mark_as_down_metadata_rule": rule,
            }
        data(await api.post(f"{base}/resources", body), 201)
        assert (await client.get(made.url)).status_code == 200
        assert (await client.get(f"{made.url}/fail")).status_code == 200  # opens an incident
    clock.advance(timedelta(seconds=1))


async def test_status_pages_in_the_browser(
    app: FastAPI,
    api: Api,
    client: httpx.AsyncClient,
    clock: FrozenClock,
    playwright_runtime: browser.Runtime,
    tmp_path: Path,
) -> None:
    await add_person(app, email="ann@example.com", role="admin")
    page = data(
        await api.post(
            "/api/v2/status-pages",
            {
                "subdomain": "acme-status",
                "company_name": "Acme status",
                "custom_domain": "status.acme.example",
            },
        ),
        201,
    )
    base = f"/api/v2/status-pages/{page['id']}"
    section = data(await api.post(f"{base}/sections", {"name": "Website"}), 201)
    for name, url in (("Website", "https://example.com"), ("Shop", "https://shop.example.com")):
        monitor = data(
            await api.post("/api/v2/monitors", {"url": url, "pronounceable_name": name}), 201
        )
        body = {
            "status_page_section_id": int(section["id"]),
            "resource_type": "Monitor",
            "resource_id": monitor["id"],
        }
        data(await api.post(f"{base}/resources", body), 201)
    data(await api.post("/api/v2/heartbeats", {"name": "Nightly backup"}), 201)
    beta = data(
        await api.post(
            "/api/v2/status-pages",
            {
                "subdomain": "beta",
                "company_name": "Beta status",
                # Long: at 375 px it wraps between its labels, no sideways scroll (shots()).
                "custom_domain": "status-of-the-subsidiary.customer-facing-department.example",
            },
        ),
        201,
    )
    for name in ("Website", "Shop"):
        body = {"resource_type": "ManuallyTrackedItem", "public_name": name}
        data(await api.post(f"/api/v2/status-pages/{beta['id']}/resources", body), 201)
    await _gamma(api, client, clock)
    await run_console_spec(
        app, playwright_runtime, tmp_path, SPEC, tests=3, env={"EMAIL": "ann@example.com"}
    )
