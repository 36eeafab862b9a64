"""The response envelope: {"data": resource} and lists with pagination, as JSON responses.
The resources themselves are built in listing.py."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson
from fastapi.responses import Response

from watchpost.listing import Resource


class JsonResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


def single(
    item: Resource, *, status: int = 200, included: list[Resource] | None = None
) -> Response:
    body: dict[str, Any] = {"data": item}
    if included is not None:
        body["included"] = included
    return JsonResponse(body, status_code=status)


def listing(
    items: Iterable[Resource],
    pagination: dict[str, str | None],
    *,
    included: list[Resource] | None = None,
) -> Response:
    body: dict[str, Any] = {"data": list(items)}
    if included is not None:
        body["included"] = included
    body["pagination"] = pagination
    return JsonResponse(body)


def no_content() -> Response:
    return Response(status_code=204)
