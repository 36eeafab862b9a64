"""The forms in Chromium, driven by labels and roles: a monitor created after a validation
error shown beside its field, then edited; axe-core and 375 px on every form page."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.console import add_person, run_console_spec
from watchpost.probes.monitors import browser

SPEC = r"""
test('create a monitor after fixing an error, then edit it', async ({ page }) => {
  await signIn(page, env.EMAIL);
  await page.goto(env.BASE + '/monitors/new');
  await page.getByLabel('Monitor type').selectOption('tcp');
  await page.waitForURL(/type=tcp/);
  await page.getByLabel(/^Host/).fill('db.example.com');
  await page.getByLabel(/^Port/).fill('70000');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await expect(page.getByRole('heading', { name: 'There is a problem' })).toBeVisible();
  const port = page.getByLabel(/^Port/);
  await expect(port).toHaveAccessibleDescription(/port must be a port number between 1 and 65535/);
  await expect(port).toHaveValue('70000');
  await expect(page.getByText(/^Error: port must be a port number/)).toBeVisible();
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/monitor-error-1280.png', fullPage: true });
  await phone(page);
  await noSideScroll(page);
  await page.screenshot({ path: env.SHOTS + '/monitor-error-375.png', fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });

  await port.fill('5432');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await page.waitForURL(/\/monitors\/\d+$/);
  const id = page.url().split('/').pop();

  await page.goto(env.BASE + '/monitors/' + id + '/edit');
  await expect(page.getByLabel(/^Host/)).toHaveValue('db.example.com');
  await page.getByLabel('Name', { exact: true }).fill('Primary database');
  await page.getByLabel('Check frequency (seconds)').fill('60');
  await page.getByRole('button', { name: 'Save monitor' }).click();
  await page.waitForURL(new RegExp('/monitors/' + id + '$'));
  await page.goto(env.BASE + '/monitors/' + id + '/edit');
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Primary database');
  await expect(page.getByLabel('Check frequency (seconds)')).toHaveValue('60');
  await axe(page);
});

test('every form page is accessible and fits a phone', async ({ page }) => {
  await signIn(page, env.EMAIL);
  const pages = {
    'monitor-status': '/monitors/new',
    'monitor-dns': '/monitors/new?type=dns',
    'heartbeat': '/heartbeats/new',
    'target': '/targets/new?kind=elasticsearch',
    'group': '/groups/new?kind=heartbeat',
  };
  for (const [name, path] of Object.entries(pages)) {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(env.BASE + path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await axe(page);
    await page.screenshot({ path: env.SHOTS + '/' + name + '-1280.png', fullPage: true });
    await phone(page);
    await noSideScroll(page);
    await axe(page);
    await page.screenshot({ path: env.SHOTS + '/' + name + '-375.png', fullPage: true });
  }
});
"""


async def test_forms_in_the_browser(
    app: FastAPI, api: Api, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    await add_person(app, email="ann@example.com", role="admin")
    data(await api.post("/api/v1/collectors", {"name": "Main"}), 201)
    await run_console_spec(
        app,
        playwright_runtime,
        tmp_path,
        SPEC,
        tests=2,
        env={"EMAIL": "ann@example.com"},
    )
