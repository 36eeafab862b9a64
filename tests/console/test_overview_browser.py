"""The overview in Chromium: search and filters end up in the URL (a view can be bookmarked),
bulk pause with its confirmation, axe-core, and the page at 375 px without sideways
scrolling."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.console import add_person, run_console_spec
from watchpost.probes.monitors import browser

SPEC = r"""
test('search, filters and bulk pause', async ({ page }) => {
  await signIn(page, 'ann@example.com');
  await expect(page.getByRole('heading', { name: /Overview/ })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Shop', exact: true })).toBeVisible();
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/overview-desktop.png', fullPage: true });

  await page.getByLabel('Search').fill('blog');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/[?&]q=blog/);
  await expect(page.getByRole('link', { name: 'Blog', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Shop', exact: true })).toHaveCount(0);

  await page.goto(env.BASE + '/');
  await page.getByRole('checkbox', { name: 'Paused' }).check();
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/[?&]state=paused/);
  await expect(page.getByRole('link', { name: 'Blog', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Shop', exact: true })).toHaveCount(0);
  // The same view from its URL alone.
  const bookmarked = page.url();
  await page.goto(env.BASE + '/');
  await page.goto(bookmarked);
  await expect(page.getByRole('checkbox', { name: 'Paused' })).toBeChecked();

  await page.goto(env.BASE + '/?kind=monitor&sort=name');
  await page.getByRole('checkbox', { name: 'Select Shop' }).check();
  await page.getByRole('checkbox', { name: 'Select Api' }).check();
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  // The confirmation says how many.
  await expect(page.getByRole('heading', { name: 'Pause 2 monitors?' })).toBeVisible();
  await axe(page);
  await page.getByRole('button', { name: 'Pause 2 monitors' }).click();
  await expect(page.getByText(/Paused 2/)).toBeVisible();
  await phone(page);
  await page.goto(env.BASE + '/?state=paused');
  await expect(page.getByRole('link', { name: 'Shop', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Api', exact: true })).toBeVisible();
  await noSideScroll(page);
  await axe(page);
  await page.screenshot({ path: env.SHOTS + '/overview-phone.png', fullPage: true });
});
"""


async def test_overview_in_chromium(
    app: FastAPI, api: Api, playwright_runtime: browser.Runtime, tmp_path: Path
) -> None:
    for name, url, paused in (
        ("Shop", "https://shop.example.com", False),
        ("Api", "https://api.example.com/health", False),
        ("Blog", "https://blog.example.com", True),
    ):
        body = {"url": url, "pronounceable_name": name, "paused": paused}
        data(await api.post("/api/v2/monitors", body), 201)
    await api.post("/api/v2/heartbeats", {"name": "Nightly backup"})
    await add_person(app, email="ann@example.com", role="responder")
    await run_console_spec(app, playwright_runtime, tmp_path, SPEC, tests=1)
    listed = (await api.get("/api/v2/monitors")).json()["data"]
    stopped = {m["attributes"]["pronounceable_name"] for m in listed if m["attributes"]["paused"]}
    assert stopped == {"Shop", "Api", "Blog"}
