"""kill -9 under concurrent writes: every acknowledged write survives, nothing is half-written.

A real `watchpost serve` takes creates of monitors, heartbeats and collector targets from
several clients at once; it is killed with SIGKILL mid-load, restarted on the same database,
and then every write it answered 2xx is read back with its content, and every object that
exists (acknowledged or not: a commit may beat the kill while its answer does not) matches,
field for field, one request that was sent. Bounded: CLIENTS * MAX_PER_CLIENT requests.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import postgres_schema
from tests.factories.processes import cli_env, run_cli_in_process, serve, stop

CLIENTS = 6
MAX_PER_CLIENT = 150
KILL_AFTER_ACKS = 90  # the server dies once this many writes were acknowledged

COLLECTION = {
    "monitor": "/api/v2/monitors",
    "heartbeat": "/api/v2/heartbeats",
    "target": "/api/v1/collectors/{collector}/targets",
}


def body_for(kind: str, tag: str) -> dict[str, Any]:
    """A create body whose every field names the request (tag), so a row shows which one
    wrote it, and whether it wrote all of it."""
    if kind == "monitor":
        return {"url": f"https://example.com/{tag}", "pronounceable_name": tag}
    if kind == "heartbeat":
        return {"name": tag, "period": 300 + len(tag), "grace": 60}
    return {"kind": "redis", "host": f"{tag}.internal", "port": 6000 + len(tag)}


def tag_of(kind: str, attributes: dict[str, Any]) -> str:
    if kind == "monitor":
        return str(attributes["pronounceable_name"])
    if kind == "heartbeat":
        return str(attributes["name"])
    return str(attributes["host"]).removesuffix(".internal")


@dataclass
class Load:
    """What the clients sent and what the server acknowledged."""

    base: str
    headers: dict[str, str]
    collector: str
    sent: dict[str, dict[str, Any]] = field(default_factory=dict)  # tag → body
    acked: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, id, tag)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def path(self, kind: str) -> str:
        return COLLECTION[kind].format(collector=self.collector)

    def client(self, number: int) -> None:
        with httpx.Client(headers=self.headers, timeout=10) as http:
            for i in range(MAX_PER_CLIENT):
                if self.stop.is_set():
                    return
                kind = ("monitor", "heartbeat", "target")[(number + i) % 3]
                tag = f"c{number}-{i}"
                body = body_for(kind, tag)
                with self.lock:
                    self.sent[tag] = body
                try:
                    answer = http.post(self.base + self.path(kind), json=body)
                except httpx.TransportError:
                    return  # the server is gone
                if answer.is_success:
                    with self.lock:
                        self.acked.append((kind, answer.json()["data"]["id"], tag))


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'watchpost.db'}"
        return
    with postgres_schema("wp_crash") as url:
        yield url


def every(http: httpx.Client, url: str) -> list[dict[str, Any]]:
    """All items of a list route, page by page."""
    items: list[dict[str, Any]] = []
    page: str | None = f"{url}?per_page=250"
    while page:
        answer = http.get(page)
        assert answer.status_code == 200, answer.text
        items += answer.json()["data"]
        page = answer.json()["pagination"]["next"]
    return items


def test_every_acknowledged_write_survives_kill_9(database_url: str, tmp_path: Path) -> None:
    env = cli_env(database_url, WATCHPOST_DATA_DIR=str(tmp_path / "data"))
    created = run_cli_in_process(env, "token", "create", "--team", "acme")
    assert created.returncode == 0, created.stderr
    headers = {"Authorization": f"Bearer {created.stdout.strip()}"}

    served = serve(env, tmp_path / "first")
    try:
        collector = httpx.post(
            f"{served.base}/api/v1/collectors", json={"name": "edge"}, headers=headers
        )
        assert collector.status_code == 201, collector.text
        load = Load(served.base, headers, collector.json()["data"]["id"])
        clients = [threading.Thread(target=load.client, args=(n,)) for n in range(CLIENTS)]
        for thread in clients:
            thread.start()
        deadline = time.monotonic() + 120
        while len(load.acked) < KILL_AFTER_ACKS and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(served.process.pid, signal.SIGKILL)  # mid-load: the clients are still sending
        served.process.wait(timeout=30)
        load.stop.set()
        for thread in clients:
            thread.join(timeout=60)
    finally:
        stop(served)
    assert served.process.returncode == -signal.SIGKILL
    assert len(load.acked) >= KILL_AFTER_ACKS
    assert len(load.sent) > len(load.acked)  # requests were in flight at the kill

    served = serve(env, tmp_path / "second")
    try:
        with httpx.Client(base_url=served.base, headers=headers, timeout=30) as http:
            for kind, object_id, tag in load.acked:
                answer = http.get(f"{load.path(kind)}/{object_id}")
                assert answer.status_code == 200, (kind, object_id, answer.text)
                attributes = answer.json()["data"]["attributes"]
                assert tag_of(kind, attributes) == tag
                for name, value in load.sent[tag].items():
                    assert attributes[name] == value, (kind, object_id, name)
            # every row there is whole: it matches, field for field, one request sent
            found = 0
            for kind in COLLECTION:
                for item in every(http, load.path(kind)):
                    attributes = item["attributes"]
                    tag = tag_of(kind, attributes)
                    assert tag in load.sent, (kind, attributes)
                    for name, value in load.sent[tag].items():
                        assert attributes[name] == value, (kind, item["id"], name)
                    found += 1
            assert len(load.acked) <= found <= len(load.sent)
            assert len({(kind, i) for kind, i, _ in load.acked}) == len(load.acked)
    finally:
        stop(served)
