"""Browser tests: a Playwright Test spec run in Debian's Chromium, headless (runners/playwright,
scripts/install-playwright), as the playwright monitors run theirs.

`runtime_or_skip` (the conftest's `playwright_runtime` fixture) skips with the reason when
Node, the runner or Chromium is missing, unless WATCHPOST_REQUIRE_SERVICES makes that a
failure; `run_spec` writes a spec
and its config into a folder, runs it with the given environment and checks that every test
of it passed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from tests.factories.servers import unavailable
from watchpost.probes.monitors import browser


def runtime_or_skip() -> browser.Runtime:
    """Node, the runner and Chromium, or the test skips saying which is missing."""
    found = browser.runtime()
    if isinstance(found, str):
        unavailable(f"the browser test cannot run here: {found}")
    assert not isinstance(found, str)
    return found


async def run_spec(
    runtime: browser.Runtime,
    folder: Path,
    spec: str,
    *,
    tests: int,
    env: Mapping[str, str],
    test_timeout_s: int = 60,
    run_timeout_s: int = 240,
) -> None:
    """Runs spec (the text of a Playwright Test file) in folder with env added to a bare
    environment; fails unless its `tests` tests all passed."""
    _write(
        folder,
        spec,
        browser.CONFIG
        % {"timeout_ms": test_timeout_s * 1000, "chromium": json.dumps(runtime.chromium)},
    )
    process = await asyncio.create_subprocess_exec(
        runtime.node,
        str(runtime.cli),
        "test",
        "--config",
        str(folder / "playwright.config.js"),
        cwd=folder,
        env={
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(folder),
            "NODE_PATH": str(runtime.cli.parents[2]),
            "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
            **env,
        },
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        _, stderr = await asyncio.wait_for(process.communicate(), run_timeout_s)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 9)
        await process.wait()
        raise
    _check(folder, stderr.decode(errors="replace"), tests)


def _write(folder: Path, spec: str, config: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scenario.spec.js").write_text(spec, encoding="utf-8")
    (folder / "playwright.config.js").write_text(config, encoding="utf-8")


def _check(folder: Path, stderr: str, tests: int) -> None:
    """The run's JSON report says its `tests` tests all passed."""
    report_file = folder / "report.json"
    assert report_file.is_file(), stderr[-3000:]
    report = json.loads(report_file.read_text(encoding="utf-8"))
    error = browser._first_error(report)
    assert error is None, browser._plain(error)
    assert report["stats"]["expected"] == tests, report["stats"]
