# ruff: noqa: S608  (SQL text holds a day table name the store made)
"""The attribute columns of the embedded store's logs day tables, and a batch as Arrow.

Each attribute path (up to MAX_ATTRIBUTE_COLUMNS a day) has a VARCHAR column of its own,
`"a.<path>"`, the way ClickHouse stores the paths of a JSON column: `field:value` then reads
one narrow column. `text` holds what a word is looked for in. See logs/embedded.py.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from watchpost.logs.batch import ATTRIBUTE_PREFIX, PREBUILT, EventBatch
from watchpost.logs.sql import SEP, quote

MAX_ATTRIBUTE_COLUMNS = 200
"""Attribute paths given a column of their own in one day table; later paths go without."""
MAX_PATH_LENGTH = 200
CLOSED = "no_attribute_columns"
"""A column (always NULL) marking a day table that gets no attribute columns."""


def text_of(message: str, attributes: Mapping[str, str]) -> str:
    """The `text` of an event: its message (when no attribute holds it already) and every
    attribute value, lower-cased, each between separators (a separator inside a value is
    a space there)."""
    joined = SEP.join(attributes.values())
    if joined.count(SEP) > len(attributes) - 1:
        joined = SEP.join(value.replace(SEP, " ") for value in attributes.values())
    if message and not (
        message == attributes.get("message")
        or message == attributes.get("msg")
        or message == attributes.get("log")
    ):
        joined = f"{message.replace(SEP, ' ')}{SEP}{joined}" if attributes else message
    return f"{SEP}{joined}{SEP}".lower()


@dataclass
class Layout:
    """The attribute columns of one logs day table: path -> column name."""

    columns: dict[str, str] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)
    """Every column name of the table, lower-cased (DuckDB's names ignore case)."""
    closed: bool = False
    """No column is added (a table that held events before it could have them)."""

    @classmethod
    def of(cls, names: Iterable[str]) -> Layout:
        layout = cls()
        for name in names:
            layout.taken.add(name.lower())
            if name == CLOSED:
                layout.closed = True
            elif name.startswith(ATTRIBUTE_PREFIX):
                layout.columns[name[len(ATTRIBUTE_PREFIX) :]] = name
        return layout

    def copy(self) -> Layout:
        return Layout(dict(self.columns), set(self.taken), self.closed)

    def admit(self, paths: Iterable[str]) -> dict[str, str]:
        """The columns to add for these paths (path -> name), within the limits; none is
        added for a path seen before without one (its events were stored without it)."""
        added: dict[str, str] = {}
        room = 0 if self.closed else MAX_ATTRIBUTE_COLUMNS - len(self.columns)
        for path in paths:
            if room <= 0:
                break
            if path in self.columns or len(path) > MAX_PATH_LENGTH:
                continue
            name = ATTRIBUTE_PREFIX + path
            if name.lower() in self.taken or any(ch < " " for ch in path):
                continue
            added[path] = name
            self.taken.add(name.lower())
            room -= 1
        self.columns.update(added)
        return added


ID_LIKE_DISTINCT = 0.5
"""The least share of distinct values among a new column's first values for it to be id-like."""
ID_LIKE_DENSITY = 0.35
"""The least size of a sample of those values compressed, relative to the sample, for it to be
id-like (timestamps and messages repeat their pieces: ≈ 0.1 to 0.2; numbers and hex ids ≥ 0.5)."""
SAMPLE = 2_000
"""The most of a new column's first values looked at."""
LEAST_EVIDENCE = 32
"""Fewer first values than this tell nothing: the column is left to DuckDB's compression."""


def column_type(values: pa.ChunkedArray | pa.Array) -> str:
    """The type of a new attribute column, given its first values: VARCHAR stored uncompressed
    when they are id-like (mostly distinct, and little repetition within them: user, request
    or trace ids), else VARCHAR left to DuckDB's compression.

    DuckDB's dictionary and FSST compression gains little on ids (≈ 4.6 bytes a value against
    9.0 uncompressed, five-digit ids) and makes comparing them, what `field:value` does to
    every row of a day, two to four times as slow (5 million rows: ≈ 45 against 25 ms); on
    values that repeat (levels) or repeat their pieces (timestamps, messages) it gains three
    to twenty times (bench/logs_column_compression_bench.py, docs/benchmarks.md)."""
    present = values.drop_null()
    if len(present) < LEAST_EVIDENCE:
        return "VARCHAR"
    distinct = pc.count_distinct(present).as_py()
    if distinct < ID_LIKE_DISTINCT * len(present):
        return "VARCHAR"
    sample = SEP.join(str(v) for v in present.slice(0, SAMPLE).to_pylist()).encode()
    if len(zlib.compress(sample, 1)) < ID_LIKE_DENSITY * len(sample):
        return "VARCHAR"
    return "VARCHAR USING COMPRESSION uncompressed"


DAY_KEY = b"day"
"""The schema metadata naming the day (days since the epoch) a table's events fall on."""


def arrow_table(batch: EventBatch, columns: Mapping[str, str], day: int) -> pa.Table:
    """The batch as an Arrow table of a day table's columns: `columns` (path -> column name)
    are the attribute columns it carries; `day` is kept in the schema's metadata."""
    data: dict[str, pa.Array | pa.ChunkedArray] = {
        "id": pa.array(batch.ids, pa.int64()),
        "source_id": pa.array(batch.source_ids, pa.int32()),
        "team_id": pa.array(batch.team_ids, pa.int32()),
        "dt": pa.array(batch.micros, pa.int64()).cast(pa.timestamp("us")),
    }
    prebuilt = batch.prebuilt
    if prebuilt is not None:
        for name in PREBUILT:
            data[name] = prebuilt.column(name)
        for path, name in columns.items():
            data[name] = prebuilt.column(ATTRIBUTE_PREFIX + path)
        return pa.table(data, metadata={DAY_KEY: str(day).encode()})
    attributes = batch.attributes
    data |= {
        "severity": pa.array(batch.levels, pa.string()),
        "service": pa.array(batch.services, pa.string()),
        "body": pa.array(batch.messages, pa.string()),
        "raw": pa.array(batch.raws, pa.string()),
        "text": pa.array(
            [text_of(m, a) for m, a in zip(batch.messages, attributes, strict=True)],
            pa.string(),
        ),
    }
    for path, name in columns.items():
        # a lookup per event and path: a third of what converting the dicts to a struct costs
        data[name] = pa.array([values.get(path) for values in attributes], pa.string())
    return pa.table(data, metadata={DAY_KEY: str(day).encode()})


def day_of(table: pa.Table) -> int:
    """The day (since the epoch) an arrow_table's events fall on."""
    return int(table.schema.metadata[DAY_KEY])


def lowered(incoming: pa.Table) -> str:
    """The SELECT of an Arrow table registered as `incoming` that lower-cases its attribute
    columns: they are searched case-insensitively, and a plain comparison is twice as fast
    as one that lower-cases every row (10 million rows: ≈ 90 ms against ≈ 180 ms)."""
    names = [n for n in incoming.column_names if n.startswith(ATTRIBUTE_PREFIX)]
    if not names:
        return "SELECT * FROM incoming"
    replaced = ", ".join(f"lower({quote(n)}) AS {quote(n)}" for n in names)
    return f"SELECT * REPLACE ({replaced}) FROM incoming"


def upgrade(con: duckdb.DuckDBPyConnection, name: str, columns: list[str]) -> list[str]:
    """A day table of the first layout (an `attributes` map and a `pairs` column) gets
    its `text` from the map, and loses both. It is closed to attribute columns: its events
    have none, so a path's column would not hold them all."""
    if "text" in columns or "attributes" not in columns:
        return columns
    con.execute("BEGIN TRANSACTION")
    con.execute(f"ALTER TABLE {name} ADD COLUMN text VARCHAR")
    con.execute(
        f"UPDATE {name} SET text = lower(chr(31) || array_to_string(list_transform("
        "map_values(attributes), lambda v: replace(v, chr(31), ' ')), chr(31)) || chr(31))"
    )
    con.execute(f"ALTER TABLE {name} DROP COLUMN attributes")
    if "pairs" in columns:
        con.execute(f"ALTER TABLE {name} DROP COLUMN pairs")
    con.execute(f"ALTER TABLE {name} ADD COLUMN {CLOSED} BOOLEAN")
    con.execute("COMMIT")
    return [c for c in columns if c not in ("attributes", "pairs")] + ["text", CLOSED]
