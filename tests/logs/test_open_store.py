"""open_store: the engine WATCHPOST_LOGS_URL names, checked when the settings are read."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from watchpost.logs.clickhouse import ClickHouseStore
from watchpost.logs.embedded import EmbeddedStore
from watchpost.logs.store import memory_limit_mb, open_store
from watchpost.setting_values import parse_clickhouse_url
from watchpost.settings import Settings


async def test_the_embedded_store_lives_under_the_data_folder(tmp_path: Path) -> None:
    store = open_store(Settings(data_dir=tmp_path, logs_url=""))
    assert isinstance(store, EmbeddedStore)
    assert store.path == tmp_path / "logs" / "logs.duckdb"
    assert not (tmp_path / "logs").exists()  # nothing is opened before the first use
    await store.close()


async def test_the_embedded_store_memory_limit(tmp_path: Path) -> None:
    assert memory_limit_mb(0) == 1024  # the default: 1 GiB
    store = open_store(Settings(data_dir=tmp_path, logs_memory_limit_mb=1536))
    assert isinstance(store, EmbeddedStore)
    try:
        limit = await store._read(
            lambda cursor: cursor.execute("SELECT current_setting('memory_limit')").fetchone()
        )
        assert limit is not None and str(limit[0]) == "1.5 GiB"
    finally:
        await store.close()


async def test_a_clickhouse_url_selects_clickhouse() -> None:
    store = open_store(Settings(logs_url="clickhouse://writer:s%40cret@ch.internal:9123/logs"))
    assert isinstance(store, ClickHouseStore)
    assert store.server == parse_clickhouse_url(
        "clickhouse://writer:s%40cret@ch.internal:9123/logs"
    )
    assert (store.server.username, store.server.password) == ("writer", "s@cret")
    assert (store.server.host, store.server.port, store.db) == ("ch.internal", 9123, "logs")
    await store.close()


def test_defaults_and_https() -> None:
    plain = parse_clickhouse_url("clickhouse://ch")
    assert (plain.port, plain.database, plain.username, plain.secure) == (
        8123,
        "default",
        "default",
        False,
    )
    secure = parse_clickhouse_url("clickhouses://ch/db")
    assert (secure.port, secure.secure) == (8443, True)


@pytest.mark.parametrize(
    "url",
    ["postgresql://host/db", "clickhouse://", "clickhouse://host/bad-name", "clickhouse://h/a;b"],
)
def test_a_wrong_url_fails_when_the_settings_are_read(url: str) -> None:
    with pytest.raises(ValidationError, match=r"ClickHouse|WATCHPOST_LOGS_URL"):
        Settings(logs_url=url)
