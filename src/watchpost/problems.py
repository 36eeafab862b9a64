"""Checking a request against its schema, every problem reported at once.

A body is checked in parts (the model's types and formats, read-only fields, nulls where a
field always holds a value, a domain's own rules), each part giving a list of problems;
`accepted` turns the lists into one 422, or the parsed body when there is none. Schemas and
services alike use these: nothing here knows of HTTP.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from watchpost.errors import InvalidRequest, Problem

M = TypeVar("M", bound=BaseModel)


def _describe(error: ErrorDetails) -> Problem:
    """A pydantic error as (top-level field, message) without ever echoing the input."""
    loc = [str(part) for part in error["loc"] if part not in ("body", "query", "path")]
    field = loc[0] if loc else None
    path = ".".join(loc) if loc else "body"
    kind = error["type"]
    if kind == "missing":
        text = "is required"
    elif kind == "extra_forbidden":
        text = "is not a known attribute"
    else:
        text = error["msg"]
        if text.startswith("Value error, "):
            text = text[len("Value error, ") :]
        elif text.startswith("Assertion failed, "):
            text = text[len("Assertion failed, ") :]
        text = text.replace("Input should be", "must be").replace("String should", "must")
        text = text.replace("List should", "must").replace("Dictionary should", "must")
    return field, f"{path} {text}"


def problems_from(errors: Iterable[ErrorDetails]) -> list[Problem]:
    return [_describe(error) for error in errors]


def validated(model: type[M], data: Mapping[str, Any]) -> tuple[M | None, list[Problem]]:
    """data checked by model (strict types): the parsed body, or None and its problems."""
    try:
        return model.model_validate(data, strict=True), []
    except ValidationError as exc:
        return None, problems_from(exc.errors())


def null_problems(sent: Mapping[str, Any], names: Iterable[str]) -> list[Problem]:
    """The fields of names sent as null although they always hold a value (a PATCH leaves
    out what it does not change), in the order of names."""
    return [
        (name, f"{name} must not be null") for name in names if name in sent and sent[name] is None
    ]


def read_only_problems(sent: Mapping[str, Any], names: Collection[str]) -> list[Problem]:
    """The fields of names sent although only the server sets them, in the order sent."""
    return [(name, f"{name} is read-only") for name in sent if name in names]


def sent_values(data: BaseModel, sent: Iterable[str]) -> dict[str, Any]:
    """The values of a parsed body's fields that were sent (a parsed field left out holds its
    default, which says nothing of the request)."""
    return {name: getattr(data, name) for name in sent}


def checked(
    model: type[M],
    data: Mapping[str, Any],
    *,
    read_only: Collection[str] = (),
    not_null: Iterable[str] = (),
) -> tuple[M | None, list[Problem]]:
    """Read-only fields, nulls where a value is needed, then the model's checks on the rest:
    the parsed body (None if the model refused it) and every problem, one per field."""
    problems = read_only_problems(data, read_only) + null_problems(data, not_null)
    reported = {field for field, _ in problems}
    parsed, invalid = validated(model, {k: v for k, v in data.items() if k not in reported})
    return parsed, problems + [problem for problem in invalid if problem[0] not in reported]


def accepted(parsed: M | None, problems: list[Problem]) -> M:
    """parsed when nothing is wrong; else one 422 naming every problem."""
    if problems or parsed is None:
        raise InvalidRequest(problems)
    return parsed


def parse(model: type[M], data: Mapping[str, Any]) -> M:
    """Validate data with model (strict types), or raise a 422 naming every bad field."""
    return accepted(*validated(model, data))


def team_name_problems(sent: object, team_name: str) -> list[Problem]:
    """A `team_name` in a body (the hosted API's global tokens need it) must be the token's
    team."""
    if isinstance(sent, str) and sent.strip() != team_name:
        return [("team_name", f"team_name must be the API token's team ({team_name!r})")]
    return []
