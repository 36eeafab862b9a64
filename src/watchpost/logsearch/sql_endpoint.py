# ruff: noqa: S608  (the SQL text holds ints and the validated database name only)
"""`/clickhouse` (routed by sql_endpoint_routes.py): ClickHouse's HTTP interface over a team's
own logs, read-only, for Grafana's ClickHouse plugin, clickhouse-connect, curl and the hosted
service's SQL examples.

Served when the logs store is ClickHouse (WATCHPOST_LOGS_URL). Credentials as ClickHouse
clients send them (HTTP Basic, or X-ClickHouse-User / X-ClickHouse-Key): any user name, a
team API token as the password, checked before this module loads (sql_endpoint_access.py,
which answers 501 for the embedded store too). The query (the `query` parameter, the body, or both joined
by a newline, as ClickHouse reads them) is rewritten by logsearch/sql_rewrite.py onto the team's
sources and run with readonly = 1 and limits. Answers and errors are ClickHouse's own shapes
(result bytes in the requested format; errors as `Code: N. DB::Exception: …` text with the
X-ClickHouse-Exception-Code header), since the clients are ClickHouse clients.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Iterable
from typing import Final, cast

import clickhouse_connect
from clickhouse_connect.driver.client import Client
from clickhouse_connect.driver.exceptions import ClickHouseError, DatabaseError, OperationalError
from fastapi import Request
from fastapi.responses import Response, StreamingResponse
from urllib3 import HTTPResponse

from watchpost.context import AppContext
from watchpost.logs.clickhouse import ClickHouseStore
from watchpost.logsearch.sql_catalog import EVENT_COLUMNS, METRIC_COLUMNS
from watchpost.logsearch.sql_endpoint_access import STATUS, clickhouse_error, not_implemented
from watchpost.logsearch.sql_rewrite import (
    BINARY_FORMATS,
    MAX_RESULT_BYTES,
    SqlRefused,
    output_format,
    rewrite,
)
from watchpost.setting_values import ClickHouseServer

MAX_QUERY_BYTES: Final = 1024 * 1024
RESULT_CHUNK_BYTES: Final = 256 * 1024
"""What one read of a result takes: a result is held at most this much past the limit."""
_CODE: Final = re.compile(r"Code: (\d+)\. DB::Exception: (.*)", re.DOTALL)


def _unreachable() -> Response:
    return clickhouse_error(210, "NETWORK_ERROR", "The ClickHouse server cannot be reached", 503)


class _Clients:
    """One clickhouse-connect client per server, current database an empty one of ours."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clients: dict[ClickHouseServer, Client] = {}

    def get(self, server: ClickHouseServer) -> Client:
        with self._lock:
            client = self._clients.get(server)
            if client is None:
                client = clickhouse_connect.get_client(
                    host=server.host,
                    port=server.port,
                    username=server.username,
                    password=server.password,
                    secure=server.secure,
                    autogenerate_session_id=False,
                )
                empty = f"{server.database}_sql"
                client.command(f"CREATE DATABASE IF NOT EXISTS {empty}")
                client.database = empty
                self._clients[server] = client
            return client


CLIENTS = _Clients()


def team_tables(db: str, sources: list[tuple[int, str]]) -> dict[str, str]:
    """Each table name a team may read → the SELECT that stands for it (its columns are
    sql_catalog's, which SHOW / DESC / system.columns answer with)."""
    tables: dict[str, str] = {}
    events = ", ".join(
        f"{expr} AS {name}" if expr != name else name for name, _, expr in EVENT_COLUMNS
    )
    metrics = ", ".join(
        f"{expr} AS {name}" if expr != name else name for name, _, expr in METRIC_COLUMNS
    )
    for source_id, name in sources:
        logs = f"SELECT {events} FROM {db}.logs WHERE source_id = {int(source_id)}"
        tables[f"{name}_logs"] = logs
        tables[f"{name}_s3"] = f"{logs} AND 0"
        tables[f"{name}_metrics"] = (
            f"SELECT {metrics} FROM {db}.metrics WHERE source_id = {int(source_id)}"
        )
    return tables


async def _query_text(request: Request) -> str | None:
    """The query as ClickHouse reads it; None when over MAX_QUERY_BYTES."""
    body = bytearray()
    if request.method == "POST":
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_QUERY_BYTES:
                return None
    parts = [request.query_params.get("query", ""), body.decode("utf-8", "replace")]
    return "\n".join(part for part in parts if part.strip())


async def clickhouse_http(
    request: Request, ctx: AppContext, sources: list[tuple[int, str]]
) -> Response:
    """A request sql_endpoint_access.admit let in (the team's sources): its query, rewritten
    onto the team's tables and run on the ClickHouse store."""
    store = ctx.logs
    if not isinstance(store, ClickHouseStore):
        return not_implemented()
    sql = await _query_text(request)
    if sql is None:
        return clickhouse_error(
            62, "SYNTAX_ERROR", f"The query is longer than {MAX_QUERY_BYTES} bytes", 413
        )
    if not sql.strip():
        return clickhouse_error(62, "SYNTAX_ERROR", "Empty query")
    try:
        rewritten, named = rewrite(sql, team_tables(store.db, sources))
        fmt = named or output_format(request.query_params.get("default_format"))
    except SqlRefused as refused:
        return clickhouse_error(refused.code, refused.name, str(refused))
    return await _run(store, rewritten, fmt)


def within_limit(chunks: Iterable[bytes], limit: int) -> list[bytes] | None:
    """The chunks while their total stays within `limit` bytes; None as soon as it passes,
    nothing more pulled."""
    kept: list[bytes] = []
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > limit:
            return None
        kept.append(chunk)
    return kept


def _fetch(server: ClickHouseServer, sql: str, fmt: str) -> list[bytes] | None:
    """The result in chunks, or None past MAX_RESULT_BYTES: counted here as it arrives,
    whatever the engine counted (ClickHouse's max_result_bytes counts a constant column
    once, however many rows repeat it). Closing the stream early drops the connection, which
    ends the query on the server."""
    # (the HTTP client's stream is urllib3's response)
    response = cast("HTTPResponse", CLIENTS.get(server).raw_stream(sql, fmt=fmt))
    try:
        return within_limit(response.stream(RESULT_CHUNK_BYTES), MAX_RESULT_BYTES)
    finally:
        response.close()


def _too_large() -> Response:
    return clickhouse_error(
        396,
        "TOO_MANY_ROWS_OR_BYTES",
        f"Limit for result exceeded, max bytes: {MAX_RESULT_BYTES} "
        f"({MAX_RESULT_BYTES // (1024 * 1024)} MiB); "
        "aggregate, select fewer columns or add a LIMIT",
        400,
    )


async def _run(store: ClickHouseStore, sql: str, fmt: str) -> Response:
    try:
        chunks = await asyncio.to_thread(_fetch, store.server, sql, fmt)
    except OperationalError:
        return _unreachable()
    except DatabaseError as error:
        found = _CODE.search(str(error))
        if found is None:
            return clickhouse_error(1002, "UNKNOWN_EXCEPTION", "The ClickHouse server failed", 502)
        code = int(found[1])
        message = found[2].strip().replace(f"{store.db}.", "").split("\n")[0][:2000]
        message = re.sub(r"\s*\(version [^)]*\)\s*$", "", message)
        return Response(
            f"Code: {code}. DB::Exception: {message}\n",
            status_code=STATUS.get(code, 400),
            media_type="text/plain; charset=UTF-8",
            headers={"X-ClickHouse-Exception-Code": str(code)},
        )
    except ClickHouseError:
        return _unreachable()
    if chunks is None:
        return _too_large()
    media = "application/json" if fmt.upper().startswith("JSON") else "text/plain; charset=UTF-8"
    if fmt in BINARY_FORMATS:
        media = "application/octet-stream"
    # The chunks as they came (joining them would hold the result twice).
    return StreamingResponse(
        _drain(chunks),
        media_type=media,
        headers={
            "Content-Length": str(sum(map(len, chunks))),
            "X-ClickHouse-Format": fmt,
            "X-ClickHouse-Timezone": "UTC",
        },
    )


async def _drain(chunks: list[bytes]) -> AsyncIterator[bytes]:
    """The chunks, each let go once sent."""
    chunks.reverse()
    while chunks:
        yield chunks.pop()
