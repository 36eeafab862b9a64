"""The `/clickhouse` routes (logsearch/sql_endpoint.py answers them), registered at start
without that module: it loads sqlglot and clickhouse-connect, so it is imported at the first
query, and a server that never serves one never loads them."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from watchpost.http.deps import Context
from watchpost.http.ratelimit import limit_by_address

PATH = "/clickhouse"

router = APIRouter(tags=["logs"], dependencies=[Depends(limit_by_address)])


@router.get(PATH + "/ping", include_in_schema=False)
async def ping() -> Response:
    return Response("Ok.\n", media_type="text/plain; charset=UTF-8")


@router.api_route(PATH, methods=["GET", "POST"], include_in_schema=False)
@router.api_route(PATH + "/", methods=["GET", "POST"], include_in_schema=False)
async def clickhouse_http(request: Request, ctx: Context) -> Response:
    from watchpost.logsearch import sql_endpoint  # sqlglot, clickhouse-connect: loaded here

    return await sql_endpoint.clickhouse_http(request, ctx)


# What routes.py serves (public: the credentials are checked in sql_endpoint, ClickHouse's way).
routers = (router,)
