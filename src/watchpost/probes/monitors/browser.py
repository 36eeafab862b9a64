"""Playwright monitors: the monitor's script run by Playwright Test in a real Chromium.

The script is what the hosted API's playwright monitors hold: a Playwright Test file
(`const { test, expect } = require('@playwright/test'); test('…', async ({ page }) => …)`).
Each check writes it to a fresh folder with a config (Debian's Chromium, headless, the
check's timeout, a JSON reporter), runs `playwright test` with Node in the runner folder that
scripts/install-playwright prepares (runners/playwright: @playwright/test, no browser
download), and reads the report: every test passed, or the first failure's message. The
monitor's `environment_variables` reach the script as `process.env`.

Without Node, the runner's packages or Chromium, the check fails with a result that names
what is missing and is no verdict on the monitor (`details.unsupported`). Browser runs are
heavy: at most `CONCURRENCY` run at once in a process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.monitors.check import UNSUPPORTED, MonitorCheck

RUNNER: Final = Path(__file__).resolve().parents[4] / "runners" / "playwright"
"""The runner folder of a checkout (its node_modules made by scripts/install-playwright)."""
CONCURRENCY: Final = 2
"""Browser runs at once in one process (each is a Chromium: ~150 MB and a core)."""
OUTPUT_LIMIT: Final = 1_000_000
"""Bytes of a run's report read at most."""
_SLOTS: asyncio.Semaphore | None = None

CONFIG: Final = """module.exports = {
  testDir: __dirname,
  testMatch: 'scenario.spec.js',
  timeout: %(timeout_ms)d,
  retries: 0,
  workers: 1,
  reporter: [['json', { outputFile: 'report.json' }]],
  use: {
    headless: true,
    launchOptions: { executablePath: %(chromium)s, args: ['--no-sandbox'] },
  },
};
"""


@dataclass(frozen=True)
class Runtime:
    node: str
    cli: Path
    chromium: str


def runtime() -> Runtime | str:
    """What a run needs, or what is missing (WATCHPOST_PLAYWRIGHT_RUNNER and
    WATCHPOST_CHROMIUM override where the runner and the browser are)."""
    node = shutil.which("node")
    folder = Path(os.environ.get("WATCHPOST_PLAYWRIGHT_RUNNER") or RUNNER)
    cli = folder / "node_modules" / "@playwright" / "test" / "cli.js"
    chromium = os.environ.get("WATCHPOST_CHROMIUM") or shutil.which("chromium") or ""
    if node is None:
        return "Node.js is not installed"
    if not cli.is_file():
        return f"the Playwright runner is not installed in {folder} (scripts/install-playwright)"
    if not chromium or not Path(chromium).is_file():
        return "Chromium is not installed (scripts/install-playwright)"
    return Runtime(node=node, cli=cli, chromium=chromium)


def _first_error(report: dict[str, Any]) -> str | None:
    """The first failing test's message, or None when every test passed (and one ran)."""
    ran = 0

    def walk(suite: dict[str, Any]) -> str | None:
        nonlocal ran
        for spec in suite.get("specs", []):
            for test in spec.get("tests", []):
                for result in test.get("results", []):
                    ran += 1
                    if result.get("status") not in ("passed", "skipped"):
                        error = result.get("error") or {}
                        message = str(error.get("message") or result.get("status"))
                        return f"{spec.get('title', 'test')}: {message}"
        for child in suite.get("suites", []):
            found = walk(child)
            if found:
                return found
        return None

    for suite in report.get("suites", []):
        found = walk(suite)
        if found:
            return found
    errors = report.get("errors") or []
    if errors:
        return str(errors[0].get("message") or errors[0])
    return None if ran else "the script defines no test"


def _plain(text: str) -> str:
    """A message without terminal colour codes, on one line, bounded."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    return " ".join(text.split())[:1000]


async def playwright(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    """Run the monitor's script; ok when every test in it passes."""
    global _SLOTS
    watch = Stopwatch()
    found = runtime()
    if isinstance(found, str):
        return failure(
            watch, f"playwright checks cannot run: {found}", **{UNSUPPORTED: "playwright"}
        )
    if not (settings.playwright_script or "").strip():
        return failure(watch, "the monitor has no playwright_script")
    _SLOTS = _SLOTS or asyncio.Semaphore(CONCURRENCY)
    async with _SLOTS:
        watch = Stopwatch()
        return await _run(found, settings, timeout, watch)


async def _run(
    found: Runtime, settings: MonitorCheck, timeout: float, watch: Stopwatch
) -> ProbeResult:
    with tempfile.TemporaryDirectory(prefix="watchpost-playwright-") as folder:
        work = Path(folder)
        (work / "scenario.spec.js").write_text(settings.playwright_script or "", encoding="utf-8")
        config = CONFIG % {
            "timeout_ms": max(1000, int(timeout * 1000)),
            "chromium": json.dumps(found.chromium),
        }
        (work / "playwright.config.js").write_text(config, encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": folder,
            "NODE_PATH": str(found.cli.parents[2]),
            "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
            **dict(settings.environment_variables),
        }
        process = await asyncio.create_subprocess_exec(
            found.node,
            str(found.cli),
            "test",
            "--config",
            str(work / "playwright.config.js"),
            cwd=folder,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        try:
            _, stderr = await asyncio.wait_for(process.communicate(), timeout + 15)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, 9)
            await process.wait()
            return failure(watch, f"the script did not finish within {timeout:g} s")
        report_file = work / "report.json"
        if not report_file.is_file():
            text = stderr[-2000:].decode("utf-8", errors="replace").replace(f"{folder}/", "")
            why = _plain(text) or "no report"
            return failure(watch, f"the script could not run: {why}")
        with report_file.open("rb") as handle:
            raw = handle.read(OUTPUT_LIMIT)
        try:
            report = json.loads(raw)
        except ValueError:
            return failure(watch, "the script's report could not be read")
        error = _first_error(report)
        if error is not None:
            return failure(watch, _plain(error.replace(f"{folder}/", "")))
        return ProbeResult(ok=True, latency_ms=watch.ms(), details={"runner": "playwright"})
