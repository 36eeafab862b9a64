"""What a server does not use, it does not load: after the start `watchpost serve` makes on
SQLite (the schema check, create_app(), the check engine's modules), none of the libraries
below is in memory, nor after requests refused before they use one (an OTLP export with an
unknown token or another content type, `/clickhouse` on the embedded store); the logs store's
load at its first use (memory: Arrow, DuckDB, sqlglot, clickhouse-connect and OpenTelemetry's
protobuf are ≈ 70 MB of a server's resident memory; Alembic with Mako and Pygments ≈ 10 MB,
cryptography ≈ 9 MB, SQLAlchemy's PostgreSQL dialect ≈ 2 MB), and ingesting a first batch then
works."""

from __future__ import annotations

from pathlib import Path

from tests.factories.processes import cli_env, run_cli_in_process, run_python

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
    "alembic",
    "mako",
    "sqlalchemy.dialects.postgresql",
)
"""(FastAPI itself imports OpenTelemetry's API, `opentelemetry`: the protobuf messages are ours.
httpx and joserfc are single sign-on's, loaded at the first SSO sign-in: console/sso.py;
Apprise at the first chat message or channel URL checked; dnspython at the first DNS monitor's
check; Alembic only when the database is not at the newest schema: db/migrate.py; PostgreSQL's
dialect on a PostgreSQL database: db/upsert.py.)"""
AT_START = ("pygments", "cryptography", "jinja2", "re2", "aiosmtplib", "xml.sax")
"""Not loaded at start either, but by what follows: Pygments by the test's client (httpx),
cryptography by the first secret stored (crypto.SecretBox: the new source's token) and the
first ssl_expiration check; Jinja2 by the first page, e-mail or webhook template rendered
(inline_templates.py, public_pages/templates.py, webhooks/templates.py, the console), RE2 by
the first incoming webhook pattern, aiosmtplib by the first e-mail sent, xml.sax by the first
badge. (The API's domains and the console: tests/http/test_lazy_routes.py.)"""

SERVER = f"""
import asyncio, sys
from watchpost.app import create_app
from watchpost.db.migrate import upgrade
from watchpost.settings import Settings

HEAVY = {HEAVY!r}
upgrade(Settings().async_database_url)  # as `watchpost serve` starts: at the newest schema
app = create_app()
# What serve's lifespan imports to run the check engine and the deliverer beside the app.
from watchpost.delivery.worker import Deliverer
from watchpost.engine.loop import Engine
from watchpost.incidents.policy_actions import PolicyActions

print(sorted(name for name in HEAVY + {AT_START!r} if name in sys.modules))

import httpx

client = {{name for name in HEAVY if name in sys.modules}}  # httpx's own: httpx, pygments

async def main() -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        api = {{"Authorization": "Bearer " + sys.argv[1]}}
        made = await http.post("/api/v1/sources", json={{"name": "app", "platform": "python"}}, headers=api)
        assert made.status_code == 201, made.text
        source = made.json()["data"]
        ingest = {{"Authorization": "Bearer " + source["attributes"]["token"]}}
        refused = [
            await http.post("/v1/logs", content=b"", headers={{"Authorization": "Bearer nope"}}),
            await http.post("/v1/logs", content=b"x", headers={{**ingest, "Content-Type": "text/plain"}}),
            await http.get("/clickhouse", params={{"query": "SELECT 1"}}, auth=("me", sys.argv[1])),
        ]
        print([answer.status_code for answer in refused])
        print(sorted(name for name in HEAVY if name in sys.modules and name not in client))
        sent = await http.post(
            "/",
            json=[{{"message": "first line"}}],
            headers=ingest,
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
    done = run_python(SERVER, created.stdout.strip(), env=env)
    assert done.returncode == 0, done.stderr
    loaded, refused, loaded_after_refusals, found = done.stdout.splitlines()
    assert loaded == "[]"
    assert refused == "[403, 415, 501]"
    assert loaded_after_refusals == "[]"
    assert found == "['first line']"
