"""What the console's routers share: `Signed`, the signed-in viewer a route takes, and
`console_router()`, a router of HTML pages (ConsoleRoute's error pages, no OpenAPI entry)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from watchpost.console.auth import Viewer, viewer
from watchpost.console.errors import ConsoleRoute

Signed = Annotated[Viewer, Depends(viewer)]
"""A route's signed-in viewer (console/auth.py's `viewer` dependency)."""


def console_router() -> APIRouter:
    """A router of console pages: errors shown as pages, kept out of the OpenAPI document."""
    return APIRouter(route_class=ConsoleRoute, include_in_schema=False)
