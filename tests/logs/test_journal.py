"""The embedded store's journal (logs/journal.py): records come back after the store's applied
number, in order and whole; a torn or corrupt tail is cut off; applied segments are deleted."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from watchpost.logs.journal import HEADER, Journal


def _table(n: int) -> pa.Table:
    return pa.table({"n": pa.array([n, n + 1], pa.int64()), "s": [f"event {n}", "é"]})


class Seen:
    def __init__(self) -> None:
        self.records: list[tuple[int, pa.Table]] = []

    def __call__(self, seq: int, table: pa.Table) -> None:
        self.records.append((seq, table))


def _write(folder: Path, tables: list[pa.Table], applied: int = 0, **kwargs: int) -> Seen:
    seen = Seen()
    journal = Journal(folder, seen, **kwargs)
    journal.recover(applied)
    futures = [journal.append(table) for table in tables]
    numbers = [future.result(timeout=30) for future in futures]
    journal.close()
    assert numbers == [seq for seq, _ in seen.records]  # told in order, before completing
    return seen


def test_records_after_the_applied_number_come_back(tmp_path: Path) -> None:
    seen = _write(tmp_path, [_table(1), _table(2), _table(3)])
    assert [seq for seq, _ in seen.records] == [1, 2, 3]

    journal = Journal(tmp_path, Seen())
    found = journal.recover(1)
    assert [(seq, table.to_pylist()) for seq, table in found] == [
        (2, _table(2).to_pylist()),
        (3, _table(3).to_pylist()),
    ]
    assert journal.append(_table(4)).result(timeout=30) == 4  # numbers go on
    journal.close()
    assert [seq for seq, _ in Journal(tmp_path, Seen()).recover(0)] == [1, 2, 3, 4]


def test_a_torn_record_at_the_end_is_cut_off(tmp_path: Path) -> None:
    _write(tmp_path, [_table(1), _table(2)])
    (segment,) = tmp_path.glob("*.journal")
    whole = segment.stat().st_size
    with segment.open("ab") as file:  # a record begun, the process killed before fdatasync
        file.write(HEADER.pack(b"WPJ1", 3, 10_000, 0) + b"partial")

    journal = Journal(tmp_path, Seen())
    assert [seq for seq, _ in journal.recover(0)] == [1, 2]
    assert segment.stat().st_size == whole
    assert journal.append(_table(3)).result(timeout=30) == 3
    journal.close()
    assert [seq for seq, _ in Journal(tmp_path, Seen()).recover(0)] == [1, 2, 3]


def test_a_corrupt_record_ends_what_is_read(tmp_path: Path) -> None:
    _write(tmp_path, [_table(1), _table(2)])
    (segment,) = tmp_path.glob("*.journal")
    data = bytearray(segment.read_bytes())
    data[-5] ^= 0xFF  # inside the second record's payload
    segment.write_bytes(bytes(data))
    assert [seq for seq, _ in Journal(tmp_path, Seen()).recover(0)] == [1]


def test_segments_wholly_applied_are_deleted(tmp_path: Path) -> None:
    journal = Journal(tmp_path, Seen(), segment_bytes=1)  # every group closes its segment
    journal.recover(0)
    for n in range(1, 5):
        assert journal.append(_table(n)).result(timeout=30) == n
    assert len(list(tmp_path.glob("*.journal"))) == 4
    journal.release(2)
    assert len(list(tmp_path.glob("*.journal"))) == 2
    journal.close()

    journal = Journal(tmp_path, Seen())
    assert [seq for seq, _ in journal.recover(3)] == [4]  # the segment of 3 goes on open
    assert len(list(tmp_path.glob("*.journal"))) == 1
    journal.close()


def test_nothing_written_nothing_found(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal", Seen())
    assert journal.recover(0) == []
    journal.close()
    assert list((tmp_path / "journal").iterdir()) == []


def test_a_caller_that_stopped_waiting_does_not_stop_the_journal(tmp_path: Path) -> None:
    """An ingest request cancelled while its record is written (the client hung up) cancels
    its future; the journal thread goes on with every later record."""
    seen = Seen()
    journal = Journal(tmp_path, seen)
    journal.recover(0)
    with journal._ready:  # the thread cannot take the queue until this block ends
        given_up = journal.append(_table(1))
        assert given_up.cancel()
    assert journal.append(_table(2)).result(timeout=30) == 2
    journal.close()
    assert [seq for seq, _ in seen.records] == [1, 2]  # the cancelled one is durable too
