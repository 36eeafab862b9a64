"""What a server does not use, it does not load: after create_app() on SQLite, none of the
libraries below is in memory; the logs store's load at its first use (memory: Arrow, DuckDB,
sqlglot, clickhouse-connect and OpenTelemetry's protobuf are ≈ 65 MB of a server's resident
memory), and ingesting a first batch then works."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.factories.processes import cli_env, run_cli_in_process

HEAVY = (
    "pyarrow",
    "duckdb",
    "sqlglot",
    "clickhouse_connect",
    "opentelemetry.proto",
    "google.protobuf",
    "httpx",
    "joserfc",
    "apprise",
    "dns",
)
"""(FastAPI itself imports OpenTelemetry's API, `opentelemetry`: the protobuf messages are ours.
httpx and joserfc are single sign-on's, loaded at the first SSO sign-in: console/sso.py;
Apprise at the first chat message or channel URL checked; dnspython at the first DNS monitor's
check.)"""

SERVER = f"""
import asyncio, sys
from watchpost.app import create_app

HEAVY = {HEAVY!r}
app = create_app()
print(sorted(name for name in HEAVY if name in sys.modules))

import httpx

async def main() -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        api = {{"Authorization": "Bearer " + sys.argv[1]}}
        made = await http.post("/api/v1/sources", json={{"name": "app", "platform": "python"}}, headers=api)
        assert made.status_code == 201, made.text
        source = made.json()["data"]
        sent = await http.post(
            "/",
            json=[{{"message": "first line"}}],
            headers={{"Authorization": "Bearer " + source["attributes"]["token"]}},
        )
        assert sent.status_code == 202, sent.text
        found = await http.get("/api/v1/query", params={{"source_ids": source["id"]}}, headers=api)
        assert found.status_code == 200, found.text
        print([row["message"] for row in found.json()["data"]])
    await app.state.ctx.close_logs()

asyncio.run(main())
"""


def test_a_server_loads_no_logs_library_until_a_batch_comes(tmp_path: Path) -> None:
    env = cli_env(
        f"sqlite:///{tmp_path / 'watchpost.db'}",
        WATCHPOST_DATA_DIR=str(tmp_path),
        WATCHPOST_SECRET_KEY="first-use-test",
    )
    created = run_cli_in_process(env, "token", "create", "--team", "acme")
    assert created.returncode == 0, created.stderr
    done = subprocess.run(  # noqa: S603  (fixed arguments)
        [sys.executable, "-c", SERVER, created.stdout.strip()],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded, found = done.stdout.splitlines()
    assert loaded == "[]"
    assert found == "['first line']"
