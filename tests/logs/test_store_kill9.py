"""kill -9 right after `append` returned loses nothing (the embedded store).

A real Python process appends batches to the embedded store from four concurrent tasks, and
prints each batch's ids once its append returned. It is killed with SIGKILL while it goes on
appending; then a new store on the same folder must hold every acknowledged event, each whole
(its raw body names its id), and nothing twice.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson

from tests.factories.processes import SRC
from watchpost.logs.embedded import EmbeddedStore
from watchpost.logs.store import MAX_LIMIT, Search

ACKS_BEFORE_KILL = 40

CHILD = """
import asyncio, sys
from datetime import UTC, datetime
from pathlib import Path
import orjson
from watchpost.logs.embedded import EmbeddedStore
from watchpost.logs.events import LogEvent, new_event_ids

async def appender(store, n):
    for _ in range(100_000):
        now = datetime.now(UTC)
        ids = new_event_ids(50)
        batch = [
            LogEvent(i, 1, 1, now, "info", "", f"event {i}", {"n": str(n)},
                     orjson.dumps({"id": i, "message": f"event {i}"}))
            for i in ids
        ]
        await store.append(batch)
        sys.stdout.write(" ".join(map(str, ids)) + "\\n")
        sys.stdout.flush()

async def main():
    store = EmbeddedStore(Path(sys.argv[1]))
    await asyncio.gather(*(appender(store, n) for n in range(4)))

asyncio.run(main())
"""


def append_until_killed(folder: Path) -> list[int]:
    """Run the appending process, SIGKILL it after ACKS_BEFORE_KILL acknowledgements; the
    ids it acknowledged (what it printed before dying too)."""
    env = {**os.environ, "PYTHONPATH": SRC}
    child = subprocess.Popen(  # noqa: S603
        [sys.executable, "-c", CHILD, str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert child.stdout is not None and child.stderr is not None
    acked: list[int] = []
    try:
        for _ in range(ACKS_BEFORE_KILL):
            line = child.stdout.readline()
            assert line, child.stderr.read().decode()[-2000:]
            acked += [int(i) for i in line.split()]
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    acked += [int(i) for line in child.stdout.read().splitlines() if line for i in line.split()]
    return acked


async def test_acknowledged_appends_survive_sigkill(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    acked = await asyncio.to_thread(append_until_killed, folder)
    store = EmbeddedStore(folder)
    found: list[int] = []
    try:
        after = 0
        while page := await store.search(Search([1], after_id=after, limit=MAX_LIMIT)):
            for event in page:
                assert orjson.loads(event.raw) == {"id": event.id, "message": f"event {event.id}"}
            found += [event.id for event in page]
            after = page[-1].id
    finally:
        await store.close()
    assert len(found) == len(set(found))
    missing = set(acked) - set(found)
    assert not missing, f"{len(missing)} acknowledged events lost"
    assert len(acked) >= ACKS_BEFORE_KILL * 50
