"""Every API router, in one list: the app mounts them and the route-walking tests read them."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from watchpost.http.deps import current_principal


def api_routers() -> list[APIRouter]:
    from watchpost.collectors.endpoints import router as collectors
    from watchpost.heartbeats.endpoints import router as heartbeats
    from watchpost.monitors.endpoints import router as monitors
    from watchpost.sources.endpoints import router as sources
    from watchpost.status_pages.endpoints import router as status_pages
    from watchpost.webhooks.endpoints import router as webhooks

    authenticated = APIRouter(dependencies=[Depends(current_principal)])
    for router in (collectors, heartbeats, monitors, sources, status_pages, webhooks):
        authenticated.include_router(router)
    return [authenticated]
