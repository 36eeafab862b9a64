# ruff: noqa: S608  (SQL text is what these tests send)
"""/clickhouse: ClickHouse's HTTP interface over a team's own tables, on the ClickHouse store;
the hosted service's SQL examples, clickhouse-connect as a client, and what is refused."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import clickhouse_connect
import httpx
import orjson
import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.served import serving
from tests.logs_query.conftest import Recorded
from tests.logs_query.events import log_event, new_source
from watchpost.logs.clickhouse import ClickHouseStore
from watchpost.logs.store import LogStore
from watchpost.logsearch.sql_endpoint import within_limit
from watchpost.logsearch.sql_rewrite import MAX_RESULT_BYTES

SQL = "/clickhouse"


@pytest.fixture
def clickhouse(app: FastAPI, clickhouse_logs: ClickHouseStore) -> Iterator[ClickHouseStore]:
    ctx = app.state.ctx
    own = ctx.logs
    ctx.logs = clickhouse_logs
    yield clickhouse_logs
    ctx.logs = own


async def table(api: Api, source_id: int) -> str:
    source = data(await api.get(f"/api/v1/sources/{source_id}"))
    name: str = source["attributes"]["table_name"]
    return name


async def filled(api: Api, store: LogStore, name: str = "app") -> tuple[int, str]:
    source = await new_source(api, name)
    start = datetime.now(UTC) - timedelta(minutes=10)
    await store.append(
        [
            log_event(
                source,
                api.team_id,
                start + timedelta(minutes=n),
                {"message": f"{name} {n}", "level": "error" if n % 2 else "info"},
            )
            for n in range(5)
        ]
    )
    return source, await table(api, source)


async def sql(api: Api, query: str, **params: str) -> httpx.Response:
    return await api.client.post(
        SQL, params=params, content=query.encode(), auth=(api.team_name, api.token)
    )


HOSTED_EXAMPLE = """SELECT dt, raw FROM (
    SELECT dt, raw FROM remote({table}_logs)
    UNION ALL
    SELECT dt, raw FROM s3Cluster(primary, {table}_s3)
      WHERE _row_type = 1
  ) ORDER BY dt DESC LIMIT 100 FORMAT JSONEachRow"""


async def test_the_hosted_example(api: Api, other_api: Api, clickhouse: ClickHouseStore) -> None:
    _, mine = await filled(api, clickhouse)
    await filled(other_api, clickhouse, "theirs")
    response = await sql(
        api, HOSTED_EXAMPLE.format(table=mine), output_format_pretty_row_numbers="0"
    )
    assert response.status_code == 200, response.text
    rows = [orjson.loads(line) for line in response.text.splitlines()]
    assert [orjson.loads(row["raw"])["message"] for row in rows] == [
        f"app {n}" for n in range(4, -1, -1)
    ]
    assert response.headers["x-clickhouse-format"] == "JSONEachRow"


async def test_aggregates_and_formats(api: Api, clickhouse: ClickHouseStore) -> None:
    _, mine = await filled(api, clickhouse)
    query = f"SELECT level, count() AS n FROM {mine}_logs GROUP BY level ORDER BY level"
    response = await sql(api, query + " FORMAT JSON")
    assert response.status_code == 200, response.text
    assert response.json()["data"] == [
        {"level": "error", "n": 2},
        {"level": "info", "n": 3},
    ]
    as_text = await api.client.get(
        SQL,
        params={"query": query, "default_format": "CSV"},
        headers={"X-ClickHouse-User": "me", "X-ClickHouse-Key": api.token},
    )
    assert as_text.status_code == 200, as_text.text
    assert as_text.text == '"error",2\n"info",3\n'
    extracted = await sql(
        api, f"SELECT JSONExtractString(raw, 'message') FROM {mine}_logs ORDER BY dt LIMIT 1"
    )
    assert extracted.text == "app 0\n"


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("SELECT * FROM {other}_logs", 404, "60"),
        ("SELECT * FROM {db}.logs", 403, "497"),
        ("SELECT count() FROM {mine}_logs WHERE id IN {db}.logs", 403, "497"),
        ("SELECT * FROM system.parts", 403, "497"),
        ("SELECT * FROM url('http://127.0.0.1:9/x', CSV)", 403, "497"),
        ("SELECT * FROM remote('127.0.0.1', {db}.logs)", 404, "60"),
        ("INSERT INTO {mine}_logs (raw) VALUES ('x')", 403, "164"),
        ("DROP TABLE {db}.logs", 403, "164"),
        ("SELECT 1 SETTINGS readonly = 0", 403, "497"),
        ("SELECT dictGet('d', 'a', toUInt64(1))", 403, "497"),
        ("SELECT 1; SELECT 2", 400, "62"),
        ("SELECT FROM WHERE", 400, "62"),
        ("SELECT nosuchcolumn FROM {mine}_logs", 400, "47"),
        ("SELECT 1 FORMAT NoSuchFormat", 400, "73"),
        ("SELECT " + "(" * 5000 + "1" + ")" * 5000, 400, "62"),
    ],
)
async def test_refused(
    api: Api, other_api: Api, clickhouse: ClickHouseStore, query: str, status: int, code: str
) -> None:
    _, mine = await filled(api, clickhouse)
    _, other = await filled(other_api, clickhouse, "theirs")
    response = await sql(api, query.format(mine=mine, other=other, db=clickhouse.db))
    assert response.status_code == status, response.text
    assert response.headers["x-clickhouse-exception-code"] == code
    assert response.text.startswith(f"Code: {code}. DB::Exception: ")
    if "{db}" not in query:  # the store's database is never named unless the query did
        assert clickhouse.db not in response.text
    # Nothing was written or dropped: the team's events are all there.
    assert (await sql(api, f"SELECT count() FROM {mine}_logs")).text == "5\n"


async def test_credentials(api: Api, app: FastAPI, clickhouse: ClickHouseStore) -> None:
    for auth in (None, ("me", "wrong-token"), ("me", "")):
        response = await api.client.post(SQL, content=b"SELECT 1", auth=auth)  # type: ignore[arg-type]
        assert response.status_code == 401
        assert response.headers["x-clickhouse-exception-code"] == "516"
    in_url = await api.client.get(SQL, params={"query": "SELECT 1", "password": api.token})
    assert in_url.status_code == 401  # a password in the URL would be kept by access logs
    assert (await api.client.get(f"{SQL}/ping")).text == "Ok.\n"


async def test_embedded_store_says_so(api: Api, app: FastAPI) -> None:
    response = await sql(api, "SELECT 1")
    assert response.status_code == 501
    assert "ClickHouse logs store" in response.text


async def test_query_size_limit(api: Api, clickhouse: ClickHouseStore) -> None:
    response = await sql(api, "SELECT 1 " + " " * (1024 * 1024))
    assert response.status_code == 413


# Rows of 1 MB each: a constant string, which ClickHouse's max_result_bytes counts once,
# whatever the number of rows (chDB let 400 MB of it through).
HUGE = "SELECT repeat('x', 1000000) AS x FROM {table}_logs ARRAY JOIN range({times}) AS n"


async def test_a_result_past_the_limit_is_refused_by_watchpost(api: Api, store: Recorded) -> None:
    _, mine = await filled(api, store.store)  # 5 events
    response = await sql(api, HUGE.format(table=mine, times=14))  # 70 MB
    small = await sql(api, HUGE.format(table=mine, times=2) + " FORMAT RowBinary")
    if not isinstance(store.store, ClickHouseStore):  # no SQL runs at all: nothing to limit
        assert response.status_code == small.status_code == 501
        return
    assert response.status_code == 400, response.text[:200]
    assert response.headers["x-clickhouse-exception-code"] == "396"
    assert response.text.startswith(
        f"Code: 396. DB::Exception: Limit for result exceeded, max bytes: {MAX_RESULT_BYTES}"
    )
    assert small.status_code == 200  # 10 MB: within it, whole
    assert len(small.content) == 10 * (1_000_000 + 3)  # RowBinary: a varint length, the text


async def test_the_row_limit_holds_on_the_engine(api: Api, clickhouse: ClickHouseStore) -> None:
    _, mine = await filled(api, clickhouse)
    response = await sql(api, f"SELECT n FROM {mine}_logs ARRAY JOIN range(250000) AS n")
    assert response.status_code == 400, response.text[:200]
    assert response.headers["x-clickhouse-exception-code"] == "396"


def test_the_result_is_never_pulled_past_the_limit() -> None:
    """What keeps memory bounded: the fetch stops pulling once the limit is passed."""
    pulled = 0

    def chunks() -> Iterator[bytes]:
        nonlocal pulled
        while True:  # an endless result
            pulled += 1
            yield b"x" * 1000

    assert within_limit(chunks(), 10_500) is None
    assert pulled == 11  # 11,000 bytes: past the limit, and nothing after
    assert within_limit(iter([b"ab", b"cd"]), 4) == [b"ab", b"cd"]
    assert within_limit(iter([b"ab", b"cde"]), 4) is None


async def test_clickhouse_connect_as_a_client(
    app: FastAPI, api: Api, clickhouse: ClickHouseStore
) -> None:
    """ClickHouse's own Python client, as Grafana's plugin would: connect, query, read types."""
    _, mine = await filled(api, clickhouse)
    async with serving(app) as url:
        port = int(url.rsplit(":", 1)[1])

        def run() -> Any:
            client = clickhouse_connect.get_client(
                host="127.0.0.1",
                port=port,
                username=api.team_name,
                password=api.token,
                proxy_path=SQL,
                autogenerate_session_id=False,
            )
            try:
                return client.query(
                    f"SELECT level, count() AS n, max(dt) FROM {mine}_logs "
                    "GROUP BY level ORDER BY level"
                ).result_rows
            finally:
                client.close()

        rows = await asyncio.to_thread(run)
    assert [(level, n) for level, n, _ in rows] == [("error", 2), ("info", 3)]
    assert isinstance(rows[0][2], datetime)


async def test_grafana_lists_the_teams_tables_and_columns(
    api: Api, other_api: Api, clickhouse: ClickHouseStore
) -> None:
    """What Grafana's ClickHouse plugin asks to fill its query builder: one database holding
    the team's tables, their columns with the types ClickHouse itself gives them."""
    _, mine = await filled(api, clickhouse)
    _, other = await filled(other_api, clickhouse, "theirs")
    mine_tables = sorted(f"{mine}_{kind}" for kind in ("logs", "s3", "metrics"))
    assert (await sql(api, "SHOW DATABASES")).text == "default\n"
    assert (await sql(api, 'SHOW TABLES FROM "default"')).text.split() == mine_tables
    assert (await sql(api, "SHOW TABLES")).text.split() == mine_tables
    assert (await sql(api, "SHOW TABLES FROM system")).text == ""
    listed = await sql(api, "SELECT name FROM system.tables WHERE database IN ('default')")
    assert sorted(listed.text.split()) == mine_tables
    assert (await sql(api, "SELECT name, engine FROM system.databases")).text == "default\tAtomic\n"

    for table in (f"{mine}_logs", f"{mine}_metrics"):
        described = await sql(api, f'DESC TABLE "default"."{table}" FORMAT JSONEachRow')
        assert described.status_code == 200, described.text
        declared = [
            (r["name"], r["type"]) for r in map(orjson.loads, described.text.split("\n")[:-1])
        ]
        real = await sql(
            api,
            f'SELECT * FROM "default"."{table}" LIMIT 1 FORMAT JSONCompactEachRowWithNamesAndTypes',
        )
        names, types = (orjson.loads(line) for line in real.text.split("\n")[:2])
        assert declared == list(zip(names, types, strict=True))
        columns = await sql(
            api,
            "SELECT name, type FROM system.columns "
            f"WHERE database = 'default' AND table = '{table}' ORDER BY position FORMAT JSONEachRow",
        )
        assert [
            (r["name"], r["type"]) for r in map(orjson.loads, columns.text.split("\n")[:-1])
        ] == declared

    assert (await sql(api, f'SELECT count() FROM "default"."{mine}_logs"')).text == "5\n"
    refused = await sql(api, f"DESC TABLE {other}_logs")
    assert refused.headers["x-clickhouse-exception-code"] == "60"
    every = await sql(api, "SELECT DISTINCT table FROM system.columns")
    assert other not in every.text and clickhouse.db not in every.text
