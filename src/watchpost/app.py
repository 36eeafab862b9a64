"""create_app(): routers, error handlers and lifespan of the Watchpost HTTP server."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI
from fastapi.responses import Response
from sqlalchemy import text

from watchpost import __version__
from watchpost.clock import Clock
from watchpost.context import AppContext
from watchpost.db.outage import RETRY_AFTER_S
from watchpost.http.deps import Context, RequestSessionsMiddleware
from watchpost.http.docs import docs_routes
from watchpost.http.envelope import JsonResponse
from watchpost.http.errors import UnhandledErrors, install_error_handlers, json_error
from watchpost.http.lazy_routes import LazyApp
from watchpost.http.logs import install as redact_secret_paths
from watchpost.http.nul import RefuseNul
from watchpost.http.security import SecurityHeaders
from watchpost.logs.retention import RetentionLoop
from watchpost.masking import install as mask_logged_urls
from watchpost.settings import Settings

health = APIRouter()


@health.get("/healthz", tags=["health"], summary="Liveness and database reachability")
async def healthz(ctx: Context) -> Response:
    try:
        async with ctx.db.read_sessions() as session:
            await session.execute(text("SELECT 1"))
    except Exception as exc:
        # Whatever stops `SELECT 1` is an outage; logged once however often this is polled.
        ctx.db.outage.failed(exc)
        return json_error(
            503,
            {"status": "unavailable", "database": "unreachable"},
            {"Retry-After": str(RETRY_AFTER_S)},
        )
    ctx.db.outage.succeeded()
    return JsonResponse({"status": "ok", "database": "ok"})


def create_app(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    engine: bool = False,
    retention: bool | None = None,
) -> FastAPI:
    """The ASGI app. The database is not migrated here: `watchpost serve` does that first.

    engine: run the check engine and alert delivery in-process for the app's lifetime (what
    `serve` does unless `--no-engine`); off by default so an app built for tests checks and
    sends nothing on its own. retention: enforce the logs retention periodically (default: as
    engine; `serve` always does, as the process that owns the embedded logs store).
    """
    return build_app(
        AppContext.build(settings or Settings(), clock), engine=engine, retention=retention
    )


def build_app(ctx: AppContext, *, engine: bool = False, retention: bool | None = None) -> FastAPI:
    """The app around a context. The context may be swapped (`app.state.ctx`) before use:
    the tests build the routes once and give every test a fresh database."""
    from watchpost.console.paths import SECRET_PATH_PREFIXES as CONSOLE_SECRETS
    from watchpost.public_pages.access import (
        PREFIX,
        PageDenied,
        PageHosts,
        on_page_denied,
        page_not_found,
    )
    from watchpost.public_pages.endpoints import fallback_routes as page_fallback_routes
    from watchpost.routes import (
        api_groups,
        console_group,
        flat_routes,
        public_routes,
        secret_path_prefixes,
    )
    from watchpost.status_pages import references
    from watchpost.subscriptions import receiver

    references.install()  # deleting a shown item deletes the resources showing it
    receiver.install()  # status page subscribers: a receiver of the delivery system

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        checker = deliverer = None
        if engine:
            from watchpost.delivery.worker import Deliverer
            from watchpost.engine.loop import Engine
            from watchpost.incidents.policy_actions import PolicyActions

            checker = Engine(app.state.ctx)
            deliverer = Deliverer(app.state.ctx, incidents=PolicyActions(app.state.ctx.clock))
            running = asyncio.gather(checker.run_forever(), deliverer.run_forever())
        # Everything built so far (routes, models, schemas: ≈ 140,000 objects) lives as long
        # as the process. Out of the collector's reach, a full collection no longer walks
        # them: ≈ 50 ms of pause otherwise, which was the list benchmark's p99.
        gc.freeze()
        # Logs retention runs in the serving process: it owns the embedded store.
        pruner = (
            RetentionLoop(
                app.state.ctx.db,
                app.state.ctx.logs_to_prune,
                app.state.ctx.clock,
                delay=app.state.ctx.settings.logs_retention_delay,
            )
            if (engine if retention is None else retention)
            else None
        )
        app.state.retention = pruner
        pruning = asyncio.ensure_future(pruner.run_forever()) if pruner else None
        try:
            yield
        finally:
            if checker is not None and deliverer is not None:
                checker.stop()
                deliverer.stop()
                await running
            if pruner is not None and pruning is not None:
                pruner.stop()
                await pruning
            await app.state.ctx.close_logs()
            await app.state.ctx.db.dispose()

    app = LazyApp(
        title="Watchpost",
        version=__version__,
        description="Self-hosted monitoring: uptime API under /api/v2, telemetry API under /api/v1.",
        lifespan=lifespan,
        docs_url=None,  # FastAPI's pages load from CDNs: ours are served offline (http/docs.py)
        redoc_url=None,
    )
    app.state.ctx = ctx
    install_error_handlers(app)
    app.add_exception_handler(PageDenied, on_page_denied)
    # Innermost: sees a page host's path as /status/{sub}/..., which PageHosts makes.
    app.add_middleware(RefuseNul, html_prefix=PREFIX + "/", html_not_found=page_not_found)
    app.add_middleware(PageHosts)  # a page's own host is served as /status/{sub}
    app.add_middleware(RequestSessionsMiddleware)
    app.add_middleware(UnhandledErrors)  # outside the others: sees every exception
    app.add_middleware(SecurityHeaders)  # added last: the outermost, heads every answer
    # Listed flat rather than included: see routes.py for what nesting costs per request.
    # The API's domains and the console are built at the first request for one of their paths.
    app.router.routes.extend([*flat_routes([health]), *public_routes(), *api_groups(app.router)])
    app.router.routes.extend(docs_routes(app.title, app.openapi_url or "/openapi.json"))
    app.router.routes.append(console_group(app.router))  # the operator console's pages
    app.router.routes.extend(page_fallback_routes())  # last: any other path of a page, 404
    # uvicorn configures its loggers before the app starts serving; filters stay on them.
    redact_secret_paths([*secret_path_prefixes(), *CONSOLE_SECRETS])
    mask_logged_urls()  # every log record of the process, whichever logger writes it
    return app
