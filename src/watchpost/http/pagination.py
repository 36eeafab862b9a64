"""Reading a list's page from the request: page and per_page from the query string, and
the absolute URL its links are built on. The paging itself is in listing.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Query, Request

from watchpost.errors import InvalidRequest
from watchpost.listing import DEFAULT_PER_PAGE, MAX_PER_PAGE, PageRequest
from watchpost.validation import INT64_MAX, ascii_int, documented_as


def _positive_int(name: str, raw: str | None, default: int) -> int:
    if raw is None:
        return default
    value = ascii_int(raw.strip(), low=1, high=INT64_MAX)
    if value is None:
        raise InvalidRequest.field(name, f"must be a positive integer (at most {INT64_MAX})")
    return value


def _documented(description: str) -> Any:
    """A query parameter read as text (parsed here, so every problem is one 422 of ours) and
    documented as the positive integer it must be."""
    return Query(
        default=None,
        description=description,
        json_schema_extra=documented_as({"type": "integer", "minimum": 1, "maximum": INT64_MAX}),
    )


async def page_request(
    request: Request,
    page: str | None = _documented("Page number, from 1."),
    per_page: str | None = _documented(
        f"Items per page; default {DEFAULT_PER_PAGE}, larger than {MAX_PER_PAGE} is clamped."
    ),
) -> PageRequest:
    """Read page and per_page from the query string (422 unless positive integers).

    Async, like every dependency here: FastAPI runs a plain `def` dependency in a thread.
    """
    query = request.query_params
    problems: list[tuple[str | None, str]] = []
    page_number = size = 1
    try:
        page_number = _positive_int("page", page, 1)
    except InvalidRequest as exc:
        problems += exc.problems
    try:
        size = min(_positive_int("per_page", per_page, DEFAULT_PER_PAGE), MAX_PER_PAGE)
    except InvalidRequest as exc:
        problems += exc.problems
    if problems:
        raise InvalidRequest(problems)
    public: str | None = request.app.state.ctx.settings.public_base
    base = (public if public else str(request.base_url).rstrip("/")) + request.url.path
    others = tuple(
        (key, value) for key, value in query.multi_items() if key not in ("page", "per_page")
    )
    return PageRequest(
        page=page_number,
        per_page=size,
        base_url=base,
        other_params=others,
        anchors=request.app.state.ctx.db.anchors,
    )


Paging = Annotated[PageRequest, Depends(page_request)]
