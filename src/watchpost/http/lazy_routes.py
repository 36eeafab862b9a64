"""Routes built at the first request that could be theirs, not when the app is built.

A group of routes (the token API, the console) stands in the app's flat route list as one
`LazyRoutes` entry, at the place its routes belong. The first request whose path the group
covers imports the group's modules, builds its routes and puts them in the entry's place, so
every later request walks the same flat list as if they had been there from the start
(routes.py: nesting costs time per request). That first request is answered from the freshly
built routes, in the same order. A server whose console nobody opens never holds the
console's modules, templates and models (docs/benchmarks.md: memory).

Whatever asks the app for its routes (`app.routes`: the OpenAPI document, the route-walking
tests) gets them all: `LazyApp.routes` builds every group first.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from typing import Any, Final

from fastapi import FastAPI
from starlette.datastructures import URLPath
from starlette.routing import BaseRoute, Match, NoMatchFound, Router
from starlette.types import Receive, Scope, Send

_CHOSEN: Final = "watchpost.lazy_route"
"""The scope key naming, for `handle`, which of the group's routes matched."""


class LazyRoutes(BaseRoute):
    """A group of routes standing in `router`'s list until a request needs them.

    covers: whether a path may be the group's. It must be true of every path a route of the
    group serves (tests/http/test_lazy_routes.py checks each group); a path it covers that no
    route of the group serves only builds the group early.
    """

    def __init__(
        self,
        name: str,
        router: Router,
        build: Callable[[], Sequence[BaseRoute]],
        covers: Callable[[str], bool],
    ) -> None:
        self.name, self.router, self._build, self.covers = name, router, build, covers
        self._routes: list[BaseRoute] | None = None

    def load(self) -> list[BaseRoute]:
        """The group's routes, built (and put in this entry's place) the first time."""
        if self._routes is None:
            self._routes = list(self._build())
            routes = self.router.routes
            for index, route in enumerate(routes):
                if route is self:
                    routes[index : index + 1] = self._routes
                    break
            # Built after the app started: out of the collector's reach like the rest (app.py).
            gc.freeze()
        return self._routes

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http" or not self.covers(scope["path"]):
            return Match.NONE, {}
        # Our entry may already be replaced in the list being walked: answer for the whole
        # group here; the walk then meets the group's routes again, which changes nothing.
        partial: tuple[BaseRoute, Scope] | None = None
        for route in self.load():
            match, child = route.matches(scope)
            if match is Match.FULL:
                return match, {**child, _CHOSEN: route}
            if match is Match.PARTIAL and partial is None:
                partial = route, child
        if partial is None:
            return Match.NONE, {}
        return Match.PARTIAL, {**partial[1], _CHOSEN: partial[0]}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        route: BaseRoute = scope[_CHOSEN]
        await route.handle(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        for route in self.load():
            try:
                return route.url_path_for(name, **path_params)
            except NoMatchFound:
                pass
        raise NoMatchFound(name, path_params)

    def __repr__(self) -> str:
        return f"LazyRoutes({self.name!r}, built={self._routes is not None})"


def build_all(router: Router) -> list[BaseRoute]:
    """Every route of router, its lazy groups built."""
    for route in list(router.routes):
        if isinstance(route, LazyRoutes):
            route.load()
    return router.routes


class LazyApp(FastAPI):
    """FastAPI whose `routes` are all of them, lazy groups built (the OpenAPI document)."""

    @property
    def routes(self) -> list[BaseRoute]:
        return build_all(self.router)
