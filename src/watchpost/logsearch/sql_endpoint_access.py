"""`/clickhouse`'s checks before a query is read (sql_endpoint_routes.py runs them): the
credentials as ClickHouse clients send them, the token's rate limit, and whether the logs
store speaks ClickHouse SQL; errors in ClickHouse's shapes. Without sqlglot,
clickhouse-connect or the logs store: a refused request loads none of them (≈ 70 MB resident,
kept for the process's life), and the embedded store answers 501 without being opened."""

from __future__ import annotations

import binascii
import sys
from typing import Final

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy import select

from watchpost.context import AppContext
from watchpost.errors import ApiError
from watchpost.http.ratelimit import check_token
from watchpost.sources.models import Source
from watchpost.teams.service import authenticate

STATUS: Final = {62: 400, 60: 404, 73: 400, 164: 403, 497: 403, 516: 401, 48: 501, 159: 504}
"""The HTTP status of a ClickHouse error code (400 for any other)."""
CLICKHOUSE_STORE_MODULE: Final = "watchpost.logs.clickhouse"


def clickhouse_error(code: int, name: str, message: str, status: int | None = None) -> Response:
    text = f"Code: {code}. DB::Exception: {message}. ({name})\n"
    return Response(
        text,
        status_code=status or STATUS.get(code, 400),
        media_type="text/plain; charset=UTF-8",
        headers={"X-ClickHouse-Exception-Code": str(code)},
    )


def _unauthorized() -> Response:
    response = clickhouse_error(
        516,
        "AUTHENTICATION_FAILED",
        "Authentication failed: send a team API token as the "
        "password (HTTP Basic or X-ClickHouse-Key)",
    )
    response.headers["WWW-Authenticate"] = 'Basic realm="Watchpost ClickHouse"'
    return response


def not_implemented() -> Response:
    return clickhouse_error(
        48,
        "NOT_IMPLEMENTED",
        "The SQL endpoint needs the ClickHouse logs store "
        "(WATCHPOST_LOGS_URL=clickhouse://…); the embedded store does not speak ClickHouse SQL",
    )


def _password(request: Request) -> str | None:
    """The password a ClickHouse client sent (never from the URL, which access logs keep)."""
    if key := request.headers.get("x-clickhouse-key"):
        return key.strip()
    scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic" or not encoded or len(encoded) > 2048:
        return None
    try:
        decoded = binascii.a2b_base64(encoded.strip(), strict_mode=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    return decoded.partition(":")[2].strip() or None


async def admit(request: Request, ctx: AppContext) -> list[tuple[int, str]] | Response:
    """The team's sources (id, table name) for a request whose token is a team's and within
    its rate limit; otherwise the answer (401, 429)."""
    token = _password(request)
    if token is None or len(token) > 512:
        return _unauthorized()
    async with ctx.db.read_sessions() as session:
        principal = await authenticate(session, token)
        if principal is None:
            return _unauthorized()
        rows = await session.execute(
            select(Source.id, Source.table_name).where(Source.team_id == principal.team_id)
        )
        sources = [(row.id, row.table_name) for row in rows]
    try:
        check_token(request, principal.token_id)
    except ApiError as error:
        return clickhouse_error(202, "TOO_MANY_SIMULTANEOUS_QUERIES", error.message, 429)
    return sources


def may_be_clickhouse(ctx: AppContext) -> bool:
    """False when the logs store cannot be ClickHouse, found without opening it: the settings
    name no ClickHouse server (open_store's choice) and no ClickHouse store was ever made in
    this process (its module is not loaded). True otherwise: the store itself then says."""
    return bool(ctx.settings.logs_url) or CLICKHOUSE_STORE_MODULE in sys.modules
