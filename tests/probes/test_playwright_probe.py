"""Playwright monitors run for real: the monitor's Playwright Test script in Debian's
Chromium (scripts/install-playwright) against a local page, alone and through the engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.engine import engine_of
from tests.factories.servers import http_server
from watchpost.probes.monitors import browser
from watchpost.probes.monitors.check import UNSUPPORTED, MonitorCheck

PAGE = """<!doctype html><html><head><title>Shop</title></head>
<body><h1>Welcome</h1><button onclick="document.querySelector('h1').textContent='Paid'">Buy</button>
</body></html>"""


def _script(port: int, title: str = "Shop") -> str:
    return f"""const {{ test, expect }} = require('@playwright/test');
test('checkout', async ({{ page }}) => {{
  await page.goto('http://127.0.0.1:{port}/' + process.env.SHOP_PATH);
  await expect(page).toHaveTitle('{title}');
  await page.getByRole('button', {{ name: 'Buy' }}).click();
  await expect(page.locator('h1')).toHaveText('Paid');
}});
"""


def _check(script: str) -> MonitorCheck:
    return MonitorCheck(
        monitor_type="playwright",
        url="Checkout",
        playwright_script=script,
        environment_variables=(("SHOP_PATH", "shop"),),
    )


async def test_a_passing_and_a_failing_script(playwright_runtime: browser.Runtime) -> None:
    seen: list[str] = []

    def respond(target: str, headers: dict[str, str]) -> tuple[int, str, str]:
        seen.append(target)
        return 200, "text/html", PAGE

    async with http_server(respond) as port:
        passed = await browser.playwright(_check(_script(port)), timeout=30)
        assert passed.ok, passed.error
        assert "/shop" in seen  # the variable reached the script
        failed = await browser.playwright(_check(_script(port, "Closed")), timeout=30)
    assert not failed.ok and UNSUPPORTED not in failed.details
    assert failed.error is not None and failed.error.startswith("checkout: Error:")
    assert 'Expected: "Closed"' in failed.error and "\x1b" not in failed.error


async def test_a_broken_or_empty_script_says_why(playwright_runtime: browser.Runtime) -> None:
    broken = await browser.playwright(_check("this is not javascript"), timeout=30)
    assert not broken.ok and broken.error is not None
    assert "SyntaxError" in broken.error and "watchpost-playwright-" not in broken.error
    empty = await browser.playwright(_check("// nothing here"), timeout=30)
    assert not empty.ok and empty.error is not None
    missing = await browser.playwright(_check(" "), timeout=30)
    assert missing.error == "the monitor has no playwright_script"


async def test_without_a_runner_the_check_is_no_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WATCHPOST_PLAYWRIGHT_RUNNER", str(tmp_path))
    result = await browser.playwright(_check("test('x', async () => {});"), timeout=5)
    assert not result.ok and result.details == {UNSUPPORTED: "playwright"}
    assert result.error is not None and "scripts/install-playwright" in result.error


async def test_the_engine_runs_a_playwright_monitor(
    app: FastAPI, api: Api, playwright_runtime: browser.Runtime
) -> None:
    async with http_server(lambda target, headers: (200, "text/html", PAGE)) as port:
        body = {
            "monitor_type": "playwright",
            "scenario_name": "Checkout",
            "playwright_script": _script(port),
            "environment_variables": {"SHOP_PATH": "shop"},
            "request_timeout": 30,
        }
        created = data(await api.post("/api/v2/monitors", body), 201)
        await engine_of(app).tick()
    attributes = data(await api.get(f"/api/v2/monitors/{created['id']}"))["attributes"]
    assert attributes["status"] == "up", attributes
