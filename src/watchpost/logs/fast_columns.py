"""The native path of MessagePack ingestion: a body straight into Arrow columns.

`logs/_msgpack_columns.c` reads a MessagePack body in one pass and writes each event's
attributes into a column per dotted path, its JSON text, search text, level, service, message
and (RFC 3339 text of the usual form) its time, with no Python object per value; Python reads
the rarer time values. What it makes equals what `parsing.decode` + `parsing.build_batch` +
`columns.arrow_table` make of the same body (tests/logs/test_fast_columns.py holds the two
to each other); for a body it does not reproduce exactly (floats, binary or extension values,
Fluent Bit entries, bare values, keys that are not text, a key twice, deep nesting, a body that
does not parse) it answers None and the caller takes the Python path, which stays the
definition. Measured: docs/benchmarks.md, "Logs ingestion".

The module is built from C when Watchpost is installed (pyproject.toml); where it could not be,
`AVAILABLE` is False and every body takes the Python path.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from datetime import datetime
from types import ModuleType

import pyarrow as pa

from watchpost.logs.batch import ATTRIBUTE_PREFIX, PREBUILT, EventBatch, to_micros
from watchpost.logs.events import new_event_ids
from watchpost.logs.parsing import event_time, within_reach

native: ModuleType | None
try:
    from watchpost.logs import _msgpack_columns as native
except ImportError:  # pragma: no cover (built on every install of the project's own)
    native = None

AVAILABLE = native is not None

Built = tuple[bytes, bytes, bytes | None, int]
"""A string column as the C module builds it: int32 offsets, data, validity bits (None: no
nulls), null count."""


def _strings(rows: int, column: Built) -> pa.Array:
    offsets, data, validity, nulls = column
    return pa.StringArray.from_buffers(
        rows,
        pa.py_buffer(offsets),
        pa.py_buffer(data),
        None if validity is None else pa.py_buffer(validity),
        nulls,
    )


def build_batch(
    data: bytes,
    *,
    source_id: int,
    team_id: int,
    received: datetime,
    make_ids: Callable[[int], list[int]] = new_event_ids,
) -> EventBatch | None:
    """The body's events as a prebuilt batch, or None: the Python path then (or for a body
    with no events)."""
    if native is None:
        return None
    found = native.columns(data, to_micros(received))
    if found is None:
        return None
    rows, packed, fixed, attributes, odd_times = found
    times = array("q")
    times.frombytes(packed)
    micros = times.tolist()
    for row, value in odd_times:  # numbers and other text: parsing's own reading
        micros[row] = to_micros(within_reach(event_time(value), received))
    columns = {name: _strings(rows, column) for name, column in zip(PREBUILT, fixed, strict=True)}
    for path, *column in attributes:
        columns[ATTRIBUTE_PREFIX + path] = _strings(rows, tuple(column))
    return EventBatch(
        ids=make_ids(rows),
        source_ids=[source_id] * rows,
        team_ids=[team_id] * rows,
        micros=micros,
        prebuilt=pa.table(columns),
    )
