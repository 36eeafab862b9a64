"""The response envelope: {"data": {id, type, attributes, ...}} and lists with pagination."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson
from fastapi.responses import Response

Resource = dict[str, Any]


class JsonResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


def resource(
    type_: str,
    id_: int | str,
    attributes: dict[str, Any],
    relationships: dict[str, Any] | None = None,
) -> Resource:
    item: Resource = {"id": str(id_), "type": type_, "attributes": attributes}
    if relationships is not None:
        item["relationships"] = relationships
    return item


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
