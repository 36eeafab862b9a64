"""Reading JSON request bodies: content type, syntax and shape checked before any rule runs."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

import orjson
from fastapi import Depends, Request
from pydantic import BaseModel, ValidationError

from watchpost.http.errors import ApiError, InvalidRequest, problems_from

M = TypeVar("M", bound=BaseModel)

MAX_BODY_BYTES = 1024 * 1024
TOO_LARGE = f"Request body is larger than {MAX_BODY_BYTES} bytes (1 MiB)."


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


async def read_capped(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The body, refused with 413 as soon as it is known to exceed limit.

    A declared `Content-Length` over the limit is refused before a byte is read; a chunked
    body is read only up to the limit. The server discards whatever the client still sends,
    so a 200 MB body costs no more memory than a 1 MiB one.
    """
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise ApiError(413, TOO_LARGE)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, TOO_LARGE)
    return bytes(body)


async def read_json_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object; an empty body reads as {}."""
    raw = await read_capped(request)
    if not raw.strip():
        return {}
    content_type = request.headers.get("content-type", "")
    if not _is_json(content_type):
        raise InvalidRequest(
            [(None, "body must be sent with 'Content-Type: application/json'")], status=415
        )
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidRequest([(None, f"body is not valid JSON ({exc.msg})")], status=400) from None
    if not isinstance(value, dict):
        raise InvalidRequest([(None, "body must be a JSON object")], status=400)
    # PostgreSQL cannot store NUL in text, and no field has a use for it: refuse it for both.
    with_nul = [key for key, item in value.items() if _has_nul(item) or "\x00" in key]
    if with_nul:
        raise InvalidRequest([(key, f"{key} must not contain NUL characters") for key in with_nul])
    return value


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any("\x00" in key or _has_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    return False


JsonObject = Annotated[dict[str, Any], Depends(read_json_object)]


def parse(model: type[M], data: dict[str, Any]) -> M:
    """Validate data with model (strict types), or raise a 422 naming every bad field."""
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        raise InvalidRequest(problems_from(exc.errors())) from None
