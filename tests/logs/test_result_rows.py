"""Both stores' rows become the same events and metric points (logs/result_rows.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from watchpost.logs.events import MetricPoint, StoredEvent
from watchpost.logs.result_rows import event_columns, metric_columns, metric_point, stored_event

AT = datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)
AT_US = 1772366400123456


def test_each_engine_selects_the_same_columns_in_the_same_order() -> None:
    assert event_columns("duckdb") == "id, source_id, epoch_us(dt), raw"
    assert event_columns("clickhouse") == "id, source_id, toUnixTimestamp64Micro(dt), raw"
    assert metric_columns("duckdb") == "source_id, team_id, epoch_us(dt), name, value, tags"
    assert metric_columns("clickhouse").startswith("source_id, team_id, toUnixTimestamp64Micro")


def test_raw_as_text_or_bytes_is_the_same_event() -> None:
    expected = StoredEvent(id=7, source_id=3, dt=AT, raw=b'{"message":"h\xc3\xa9"}')
    assert stored_event((7, 3, AT_US, '{"message":"hé"}')) == expected
    assert stored_event((7, 3, AT_US, b'{"message":"h\xc3\xa9"}')) == expected


def test_a_metric_row_becomes_a_point() -> None:
    point = metric_point((3, 1, AT_US, "cpu", 1, {"host": "a"}))
    assert point == MetricPoint(
        source_id=3, team_id=1, dt=AT, name="cpu", value=1.0, tags={"host": "a"}
    )
    assert isinstance(point.value, float)
