"""Uptime Kuma for the peer benchmark: installed from a checkout into a folder of its own,
run as `node server/server.js` (its `npm run start-server`) on SQLite, with monitors seeded
into its database.

Install: the checkout is copied to WORK/kuma/app, where `npm ci --no-audit`, `npm run build`
(its web UI: the server will not start without dist/index.html) and `npm prune --omit dev`
run. That is its own `npm run setup` (`npm ci --omit dev`, then a download of the same built
UI from GitHub) with the UI built here instead of downloaded.

Seeding, before the server's first start, in a fresh data folder: `db-config.json` says
`{"type": "sqlite"}` (no database setup page); the schema is made by Kuma's own code
(`Database.connect()` and `Database.patch()`, the migrations its start runs); then, with
sqlite3, one user (`admin`, password hashed by Kuma's own password-hash.js), the setting
`checkUpdate` = false (so the server never asks the Internet for a newer version) and N `http`
monitors (GET, every 30 s, timeout 24 s as its UI proposes, no retries) of the bench's target,
active, owned by that user. Kuma starts its monitors one after the other with a random
0.3-1 s pause between them: the bench waits until each has a first heartbeat.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from peers.procs import running

SCHEMA = """
const Database = require("./server/database");
const passwordHash = require("./server/password-hash");
(async () => {
    Database.initDataDir({});
    await Database.connect(false, true, true);
    await Database.patch();
    await Database.close();
    console.log("HASH " + await passwordHash.generate("bench-only-password"));
    process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
"""


def describe() -> str:
    return "Uptime Kuma `node server/server.js`, SQLite, monitors seeded into kuma.db"


def install(checkout: Path, work: Path) -> Path:
    """Copy the checkout, `npm ci`, build its web UI, drop the build's packages (once: the
    result is kept while package-lock.json is the same)."""
    root = work / "kuma"
    app = root / "app"
    if not (checkout / "server" / "server.js").exists():
        raise SystemExit(f"--kuma {checkout}: not an Uptime Kuma work tree")
    digest = hashlib.sha256((checkout / "package-lock.json").read_bytes()).hexdigest()
    stamp = app / "node_modules" / ".bench-installed"
    products = ("node_modules", "dist")
    kept = stamp.exists() and stamp.read_text() == digest
    kept = kept and all((app / name).exists() for name in products)
    if kept:
        for name in products:
            (app / name).rename(root / f"{name}.kept")
    shutil.rmtree(app, ignore_errors=True)
    skip = {".git", "data", *products}  # at the top of the work tree only
    shutil.copytree(
        checkout,
        app,
        ignore=lambda folder, names: skip & set(names) if Path(folder) == checkout else set(),
    )
    if kept:
        for name in products:
            (root / f"{name}.kept").rename(app / name)
        return app
    subprocess.run(["npm", "ci", "--no-audit"], cwd=app, check=True)
    subprocess.run(["npm", "run", "build"], cwd=app, check=True)
    subprocess.run(["npm", "prune", "--omit", "dev", "--no-audit"], cwd=app, check=True)
    stamp.write_text(digest)
    return app


def environment(data: Path, port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATA_DIR=str(data) + "/",
        UPTIME_KUMA_HOST="127.0.0.1",
        UPTIME_KUMA_PORT=str(port),
        NODE_ENV="production",
    )
    return env


def seed(app: Path, data: Path, port: int, monitors: int, target: str) -> None:
    """A fresh data folder with the schema, a user and `monitors` http monitors of
    target + id."""
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    (data / "db-config.json").write_text(json.dumps({"type": "sqlite"}))
    done = subprocess.run(
        ["node", "-e", SCHEMA],
        cwd=app,
        env=environment(data, port),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    hashes = [line[5:] for line in done.stdout.splitlines() if line.startswith("HASH ")]
    if done.returncode != 0 or not hashes:
        raise SystemExit(f"Kuma's schema failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    with closing(sqlite3.connect(data / "kuma.db")) as db, db:
        db.execute(
            "INSERT INTO setting (key, value, type) VALUES ('checkUpdate', 'false', 'general')"
        )
        user = db.execute(
            "INSERT INTO user (username, password, active) VALUES ('admin', ?, 1)", (hashes[0],)
        ).lastrowid
        db.executemany(
            "INSERT INTO monitor (name, active, user_id, interval, url, type, method, "
            "maxretries, retry_interval, timeout) VALUES (?, 1, ?, 30, ?, 'http', 'GET', 0, 30, 24)",
            [(f"monitor {i}", user, f"{target}{i}") for i in range(1, monitors + 1)],
        )


def first_heartbeats(data: Path) -> int:
    """Monitors with at least one heartbeat (read from kuma.db while Kuma runs)."""
    try:
        with closing(
            sqlite3.connect(f"file:{data / 'kuma.db'}?mode=ro", uri=True, timeout=5)
        ) as db:
            row = db.execute("SELECT COUNT(DISTINCT monitor_id) FROM heartbeat").fetchone()
    except sqlite3.Error:
        return 0
    return int(row[0])


def heartbeats(data: Path) -> int:
    """Heartbeat rows so far."""
    try:
        with closing(
            sqlite3.connect(f"file:{data / 'kuma.db'}?mode=ro", uri=True, timeout=5)
        ) as db:
            row = db.execute("SELECT COUNT(*) FROM heartbeat").fetchone()
    except sqlite3.Error:
        return 0
    return int(row[0])


@contextmanager
def serve(app: Path, data: Path, port: int) -> Iterator[int]:
    """Kuma on a seeded data folder; yields its pid once its HTTP server answers."""
    cmd = ["node", "server/server.js"]
    ready = f"http://127.0.0.1:{port}/api/entry-page"
    with running(
        cmd,
        env=environment(data, port),
        cwd=app,
        log=data / "kuma.log",
        ready_url=ready,
        stop=signal.SIGINT,
        timeout=300,
    ) as pid:
        yield pid
