"""Every route of the API, as one flat list: the app serves them and the route-walking tests
read them. Each domain of the token API, and the console, is built at the first request
for one of its paths (http/lazy_routes.py): `api_groups` and `console_group`.

Flat, not nested routers: FastAPI (>= 0.16x) keeps an included router as one entry that it
matches by scanning the router's routes, then scans them again to handle the request, at every
level of nesting. With the domains behind a token router that cost ≈ 0.1 to 0.2 ms per request
(docs/benchmarks.md). Each route is therefore re-added at the top level, as FastAPI's
`add_api_route` would build it, with the token check as its first dependency.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from importlib import import_module
from typing import Any, Final

from fastapi import APIRouter, Depends
from fastapi.dependencies.models import Dependant
from fastapi.params import Depends as DependsParam
from fastapi.routing import APIRoute
from starlette.routing import Router

from watchpost.http.audited import audited_route
from watchpost.http.body import read_json_object
from watchpost.http.deps import current_principal
from watchpost.http.errors import error_responses
from watchpost.http.lazy_routes import LazyRoutes
from watchpost.public_pages.access import PREFIX as PAGE_PREFIX

# Domains whose `endpoints.routers` serve the token-protected API, one per line, each with the
# collections its paths name (`/api/<version>/<collection>/…`): a domain's modules are loaded
# and its routes built at the first request naming one of them (http/lazy_routes.py).
API_DOMAINS: Final[Mapping[str, frozenset[str]]] = {
    "audit": frozenset({"audit-log"}),
    "channels": frozenset({"notification-channels"}),
    "collectors": frozenset({"collectors"}),
    "delivery": frozenset({"notification-channels", "outgoing-webhooks"}),
    "groups": frozenset({"source-groups", "heartbeat-groups", "monitor-groups"}),
    "heartbeats": frozenset({"heartbeats"}),
    "incidents": frozenset({"incidents"}),
    "incoming": frozenset({"email-integrations", "incoming-webhooks"}),
    "logsearch": frozenset({"query", "tail"}),
    "metadata": frozenset({"metadata"}),
    "monitors": frozenset({"monitors"}),
    "oncall": frozenset({"on-calls"}),
    "pagerduty": frozenset({"pager-duty-webhooks"}),
    "policies": frozenset({"policy-groups", "policies"}),
    "probing": frozenset({"locations"}),
    "reports": frozenset({"heartbeats", "monitors"}),
    "sources": frozenset({"sources"}),
    "status_pages": frozenset({"status-page-groups", "status-pages"}),
    "subscriptions": frozenset({"status-pages"}),
    "team_members": frozenset({"team-members"}),
    "urgencies": frozenset({"urgencies", "urgency-groups"}),
    "webhooks": frozenset({"outgoing-webhooks"}),
}

# Modules whose `routers` answer without a token (e.g. heartbeat ping URLs), one per line.
# A module whose URLs carry a credential lists their prefixes in `SECRET_PATH_PREFIXES`;
# logs mask the segment after them (http/logs.py).
PUBLIC_ENDPOINTS = (
    "heartbeats.ping_endpoints",
    "incidents.acknowledge_endpoints",
    "incoming.receive_endpoints",
    "ingestion.endpoints",
    "ingestion.otlp_endpoints",
    "probing.protocol_endpoints",
    "subscriptions.public_endpoints",
    "public_pages.endpoints",
    "public_pages.machine_endpoints",
    "logsearch.sql_endpoint_routes",
)


# Route prefixes served under a second prefix too, with the same handlers, as the hosted API
# serves them (its clients use both: the Python client reads incidents from /api/v3, the
# Terraform provider sources from /api/v2).
PREFIX_ALIASES: tuple[tuple[str, str], ...] = (
    ("/api/v2/incidents", "/api/v3/incidents"),
    ("/api/v1/sources", "/api/v2/sources"),
)


def _paths(path: str) -> list[str]:
    """A route's path and its aliases."""
    return [path] + [
        alias + path.removeprefix(prefix)
        for prefix, alias in PREFIX_ALIASES
        if path == prefix or path.startswith(prefix + "/")
    ]


def _routers(module: str) -> tuple[APIRouter, ...]:
    routers: tuple[APIRouter, ...] = import_module(f"watchpost.{module}").routers
    return routers


def flat_routes(
    routers: Iterable[APIRouter],
    dependencies: Sequence[DependsParam] = (),
    responses: Mapping[int | str, dict[str, Any]] | None = None,
    route_class: type[APIRoute] = APIRoute,
) -> list[APIRoute]:
    """The routers' routes rebuilt as top-level routes (of route_class), with dependencies
    run first (and responses added to each route's documented ones)."""
    target = APIRouter(dependencies=list(dependencies), route_class=route_class)
    for router in routers:
        for route in router.routes:
            if not isinstance(route, APIRoute):
                raise TypeError(f"{route!r}: only path operations can be listed flat")
            for path in _paths(route.path):
                _add(target, route, path, responses)
    return [route for route in target.routes if isinstance(route, APIRoute)]


def _reads_json_body(dependant: Dependant) -> bool:
    return any(
        sub.call is read_json_object or _reads_json_body(sub) for sub in dependant.dependencies
    )


def _documented(
    route: APIRoute, responses: Mapping[int | str, dict[str, Any]] | None
) -> dict[int | str, Any]:
    """The route's documented responses, `responses` added, and the 413 of the JSON body
    cap on every route reading one (a route with its own limit documents its own 413)."""
    documented: dict[int | str, Any] = {**route.responses, **(responses or {})}
    if 413 not in documented and _reads_json_body(route.dependant):
        documented.update(error_responses(413))
    return documented


def _add(
    target: APIRouter,
    route: APIRoute,
    path: str,
    responses: Mapping[int | str, dict[str, Any]] | None,
) -> None:
    """`route` again on `target`, at `path`, as FastAPI's add_api_route would build it."""
    target.add_api_route(
        path,
        route.endpoint,
        response_model=route.response_model,
        status_code=route.status_code,
        tags=route.tags,
        dependencies=route.dependencies,
        summary=route.summary,
        description=route.description,
        response_description=route.response_description,
        responses=_documented(route, responses),
        deprecated=route.deprecated,
        methods=route.methods,
        operation_id=route.operation_id,
        response_model_include=route.response_model_include,
        response_model_exclude=route.response_model_exclude,
        response_model_by_alias=route.response_model_by_alias,
        response_model_exclude_unset=route.response_model_exclude_unset,
        response_model_exclude_defaults=route.response_model_exclude_defaults,
        response_model_exclude_none=route.response_model_exclude_none,
        include_in_schema=route.include_in_schema,
        response_class=route.response_class,
        name=route.name,
        callbacks=route.callbacks,
        openapi_extra=route.openapi_extra,
        generate_unique_id_function=route.generate_unique_id_function,
    )


API_PREFIX: Final = "/api/"
"""Every token-protected route's path starts so (public routes may too: they come first)."""

PAGES_PREFIX: Final = PAGE_PREFIX + "/"
"""The public status pages' paths: never the console's."""


def api_collection(path: str) -> str | None:
    """The collection an API path names: `monitors` of `/api/v2/monitors/12/sla`."""
    if not path.startswith(API_PREFIX):
        return None
    parts = path.split("/", 4)
    return parts[3] if len(parts) > 3 else None


def is_console_path(path: str) -> bool:
    """Whether a path may be a console page's: anything but the API's and the pages'."""
    return not path.startswith((API_PREFIX, PAGES_PREFIX))


def domain_routes(domain: str) -> list[APIRoute]:
    """A domain's token-protected routes; the token check (and the token's rate limit) runs
    before anything else of the route, and the audit log records its successful writes
    (http/audited.py)."""
    from watchpost.audit.endpoints import record_api_write

    return flat_routes(
        _routers(f"{domain}.endpoints"),
        [Depends(current_principal)],
        error_responses(429),
        route_class=audited_route(record_api_write),
    )


def _names(collections: frozenset[str]) -> Callable[[str], bool]:
    return lambda path: api_collection(path) in collections


def api_groups(router: Router) -> list[LazyRoutes]:
    """The API as the app lists it: each domain's routes built at the first request naming
    one of its collections."""
    return [
        LazyRoutes(f"api:{domain}", router, partial(domain_routes, domain), _names(collections))
        for domain, collections in API_DOMAINS.items()
    ]


def console_group(router: Router) -> LazyRoutes:
    """The operator console's pages (console/routes.py), built at the first request for a
    path that may be one of them."""

    def build() -> list[APIRoute]:
        from watchpost.console.routes import console_routes

        return console_routes()

    return LazyRoutes("console", router, build, is_console_path)


def public_routes() -> list[APIRoute]:
    return flat_routes(router for module in PUBLIC_ENDPOINTS for router in _routers(module))


def secret_path_prefixes() -> list[str]:
    """Path prefixes whose next segment is a credential, from the PUBLIC_ENDPOINTS modules."""
    return [
        prefix
        for module in PUBLIC_ENDPOINTS
        for prefix in getattr(import_module(f"watchpost.{module}"), "SECRET_PATH_PREFIXES", ())
    ]
