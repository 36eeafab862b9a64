"""Reading JSON request bodies: content type, syntax and shape checked before any rule runs."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from typing import Annotated, Any
from urllib.parse import parse_qs

import orjson
from fastapi import Depends, Request

from watchpost.errors import ApiError, InvalidRequest

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
        oversized = _oversized_numbers(raw)
        if oversized:
            raise InvalidRequest(
                [(key, f"{key} must be a number within the field's range") for key in oversized]
            ) from None
        raise InvalidRequest([(None, f"body is not valid JSON ({exc.msg})")], status=400) from None
    if not isinstance(value, dict):
        raise InvalidRequest([(None, "body must be a JSON object")], status=400)
    _integral_floats_as_ints(value)
    # PostgreSQL cannot store NUL in text, and no field has a use for it: refuse it for both.
    with_nul = [key for key, item in value.items() if _has_nul(item) or "\x00" in key]
    if with_nul:
        raise InvalidRequest([(key, f"{key} must not contain NUL characters") for key in with_nul])
    return value


def form_fields(text: str, *, max_fields: int) -> dict[str, list[str]]:
    """An urlencoded form's fields (blank ones left out), every form's one parser.

    More than max_fields fields, or a NUL in a name or value (PostgreSQL's text cannot hold
    it; see http/nul.py for paths and query strings), is a 422.
    """
    try:
        fields = parse_qs(text, max_num_fields=max_fields)
    except ValueError:
        raise InvalidRequest([(None, f"the form has more than {max_fields} fields")]) from None
    problems: list[tuple[str | None, str]] = [
        (name, f"{name} must not contain NUL characters")
        for name, values in fields.items()
        if "\x00" not in name and any("\x00" in value for value in values)
    ]
    if any("\x00" in name for name in fields):
        problems.append((None, "form field names must not contain NUL characters"))
    if problems:
        raise InvalidRequest(problems)
    return fields


def _containers(value: Any) -> Iterator[dict[str, Any] | list[Any]]:
    """value and every dict and list inside it, without recursion: orjson accepts 1,024
    levels of nesting, more than Python's stack would (a 500 at a few hundred levels)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            yield item
            stack.extend(item)


def _integral_floats_as_ints(body: dict[str, Any]) -> None:
    """Reads 30.0 as 30, in place. JSON Schema (and so /openapi.json) counts a number with a
    zero fraction as an integer, while the models' strict int refuses a float; a fraction
    (30.5) stays a float, which an integer field refuses. Float fields take ints as well."""
    for container in _containers(body):
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for key, item in items:
            if isinstance(item, float) and item.is_integer():
                container[key] = int(item)  # type: ignore[index]


class _TooLarge:
    """Stands for a number no field can hold, found while reading a body orjson refused."""


def _number(text: str) -> object:
    # float() has no limit on digits (int() stops at 4,300) and overflows to inf.
    return _TooLarge() if math.isinf(float(text)) else 0


def _reject_constant(name: str) -> object:
    raise ValueError(name)  # NaN and Infinity are not JSON


def _oversized_numbers(raw: bytes) -> list[str]:
    """The top-level keys holding a number beyond a double's range, which orjson refuses as
    a whole ("number is infinity"). JSON allows such numbers: they are a 422 naming the field,
    like any out-of-range value, not a 400. Empty when the body is not valid JSON anyway."""
    try:
        value = json.loads(
            raw.decode("utf-8"),
            parse_int=_number,
            parse_float=_number,
            parse_constant=_reject_constant,
        )
    except (ValueError, RecursionError):  # ValueError covers bad UTF-8 and bad JSON
        return []
    if not isinstance(value, dict):
        return []
    return [key for key, item in value.items() if _holds(item, lambda x: isinstance(x, _TooLarge))]


def _holds(value: Any, test: Callable[[Any], bool]) -> bool:
    """Whether value, or anything inside it (dict keys included), passes test."""
    if test(value):
        return True
    for container in _containers(value):
        if isinstance(container, dict):
            if any(test(key) or test(item) for key, item in container.items()):
                return True
        elif any(test(item) for item in container):
            return True
    return False


def _has_nul(value: Any) -> bool:
    return _holds(value, lambda item: isinstance(item, str) and "\x00" in item)


JsonObject = Annotated[dict[str, Any], Depends(read_json_object)]
