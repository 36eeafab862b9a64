"""Running the real `watchpost` command in a subprocess against a temporary database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import watchpost

SRC = str(Path(watchpost.__file__).resolve().parents[1])


def cli_env(database_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WATCHPOST_")}
    env["PYTHONPATH"] = SRC
    env["WATCHPOST_DATABASE_URL"] = database_url
    env.update(extra)
    return env


def run_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603
        [sys.executable, "-m", "watchpost.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
