"""The `/clickhouse` routes (logsearch/sql_endpoint.py answers them), registered at start
without that module: it loads sqlglot and clickhouse-connect, so it is imported at the first
query sql_endpoint_access.py lets through (credentials, rate limit, a ClickHouse store), and a
server that never serves one never loads them."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from watchpost.http.deps import Context
from watchpost.http.ratelimit import limit_by_address
from watchpost.logsearch import sql_endpoint_access as access

PATH = "/clickhouse"

router = APIRouter(tags=["logs"], dependencies=[Depends(limit_by_address)])


@router.get(PATH + "/ping", include_in_schema=False)
async def ping() -> Response:
    return Response("Ok.\n", media_type="text/plain; charset=UTF-8")


@router.api_route(PATH, methods=["GET", "POST"], include_in_schema=False)
@router.api_route(PATH + "/", methods=["GET", "POST"], include_in_schema=False)
async def clickhouse_http(request: Request, ctx: Context) -> Response:
    sources = await access.admit(request, ctx)
    if isinstance(sources, Response):
        return sources
    if not access.may_be_clickhouse(ctx):
        return access.not_implemented()
    from watchpost.logsearch import sql_endpoint  # sqlglot, clickhouse-connect: loaded here

    return await sql_endpoint.clickhouse_http(request, ctx, sources)


# What routes.py serves (public: sql_endpoint_access checks the credentials, ClickHouse's way).
routers = (router,)
