"""kill -9 right after a 202: every acknowledged batch is in the logs store afterwards.

A real `watchpost serve` takes msgpack batches (as logtail-python sends them) from several
clients at once; it is killed with SIGKILL mid-load, then the store is opened on its files
and read whole: every event of every acknowledged batch is there, and every event there is
whole and was sent (a batch may be stored while its answer was lost to the kill). The store's
own durability (its append returns once its write-ahead log is synced) has its own test;
this one is about the HTTP path: a 202 is sent only after that append returned. Sources live
in the database: the test runs on both backends. Bounded: CLIENTS * MAX_PER_CLIENT requests.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import msgpack
import orjson
import pytest

from tests.conftest import postgres_schema
from tests.factories.processes import cli_env, run_cli_in_process, serve, stop
from watchpost.logs.events import StoredEvent
from watchpost.logs.store import Search, open_store
from watchpost.settings import Settings

CLIENTS = 4
MAX_PER_CLIENT = 200
PER_BATCH = 50
KILL_AFTER_ACKS = 40  # batches acknowledged before the kill


@dataclass
class Load:
    base: str
    token: str
    sent: set[str] = field(default_factory=set)  # every event's tag
    acked: list[list[str]] = field(default_factory=list)  # tags of acknowledged batches
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def client(self, number: int) -> None:
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/msgpack"}
        with httpx.Client(headers=headers, timeout=10) as http:
            for i in range(MAX_PER_CLIENT):
                if self.stop.is_set():
                    return
                tags = [f"c{number}-b{i}-e{n}" for n in range(PER_BATCH)]
                now = datetime.now(UTC).isoformat()
                batch = [{"dt": now, "level": "info", "message": tag} for tag in tags]
                with self.lock:
                    self.sent.update(tags)
                try:
                    answer = http.post(self.base + "/", content=msgpack.packb(batch))
                except httpx.TransportError:
                    return  # the server is gone
                if answer.status_code == 202:
                    with self.lock:
                        self.acked.append(tags)


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'watchpost.db'}"
        return
    with postgres_schema("wp_logkill") as url:
        yield url


async def everything(data_dir: Path, source_id: int) -> list[StoredEvent]:
    """Every event of the source, oldest first, page by page through the store's cursor."""
    store = open_store(Settings(data_dir=data_dir, database_url="sqlite:///unused.db"))
    found: list[StoredEvent] = []
    try:
        while True:
            before = (found[-1].dt, found[-1].id) if found else None
            page = await store.search(
                Search(source_ids=[source_id], newest_first=False, limit=1000, before=before)
            )
            if not page:
                return found
            found += page
    finally:
        await store.close()


def test_every_acknowledged_batch_survives_kill_9(database_url: str, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    env = cli_env(
        database_url,
        WATCHPOST_DATA_DIR=str(data_dir),
        WATCHPOST_LOGS_SOURCE_RATE_LIMIT_PER_MINUTE="0",
        WATCHPOST_LOGS_ADDRESS_RATE_LIMIT_PER_MINUTE="0",
    )
    created = run_cli_in_process(env, "token", "create", "--team", "acme")
    assert created.returncode == 0, created.stderr
    api = {"Authorization": f"Bearer {created.stdout.strip()}"}

    served = serve(env, tmp_path / "first")
    try:
        source = httpx.post(
            f"{served.base}/api/v1/sources", json={"name": "app", "platform": "python"}, headers=api
        )
        assert source.status_code == 201, source.text
        source_id = int(source.json()["data"]["id"])
        load = Load(served.base, source.json()["data"]["attributes"]["token"])
        clients = [threading.Thread(target=load.client, args=(n,)) for n in range(CLIENTS)]
        for thread in clients:
            thread.start()
        deadline = time.monotonic() + 120
        while len(load.acked) < KILL_AFTER_ACKS and time.monotonic() < deadline:
            time.sleep(0.005)
        os.kill(served.process.pid, signal.SIGKILL)  # right after a 202, clients still sending
        served.process.wait(timeout=30)
        load.stop.set()
        for thread in clients:
            thread.join(timeout=60)
    finally:
        stop(served)
    assert served.process.returncode == -signal.SIGKILL
    assert len(load.acked) >= KILL_AFTER_ACKS
    acked = {tag for batch in load.acked for tag in batch}
    assert len(load.sent) > len(acked)  # batches were in flight at the kill

    events = asyncio.run(everything(data_dir, source_id))
    tags = [orjson.loads(event.raw)["message"] for event in events]
    assert acked <= set(tags), f"{len(acked - set(tags))} acknowledged events lost"
    assert set(tags) <= load.sent and len(tags) == len(set(tags))  # whole, sent, once
    by_batch = {tag.rsplit("-e", 1)[0] for tag in tags}
    for batch in by_batch:  # a batch is stored whole or not at all
        assert {f"{batch}-e{n}" for n in range(PER_BATCH)} <= set(tags), batch
