"""Every API router, in two lists: the app mounts them and the route-walking tests read them."""

from __future__ import annotations

from importlib import import_module

from fastapi import APIRouter, Depends

from watchpost.http.deps import current_principal

# Domains whose `endpoints.router` serves the token-protected API, one per line.
API_DOMAINS = (
    "collectors",
    "heartbeats",
    "monitors",
    "sources",
    "status_pages",
    "webhooks",
)


def api_routers() -> list[APIRouter]:
    authenticated = APIRouter(dependencies=[Depends(current_principal)])
    for domain in API_DOMAINS:
        router: APIRouter = import_module(f"watchpost.{domain}.endpoints").router
        authenticated.include_router(router)
    return [authenticated]


# Modules whose `router` answers without a token (e.g. heartbeat ping URLs), one per line.
PUBLIC_ENDPOINTS = ("heartbeats.ping_endpoints",)


def public_routers() -> list[APIRouter]:
    return [import_module(f"watchpost.{module}").router for module in PUBLIC_ENDPOINTS]
