"""OpenAPI fragments for the shared shapes (error bodies, request bodies)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field


class ValidationErrorBody(BaseModel):
    errors: list[str] = Field(description="Human-readable messages, one per problem.")
    invalid_attributes: list[str] = Field(description="Names of the offending fields.")


class MessageErrorBody(BaseModel):
    errors: str


ERROR_RESPONSES: dict[int, dict[str, Any]] = {
    400: {"model": ValidationErrorBody, "description": "Malformed JSON or not a JSON object"},
    401: {"model": MessageErrorBody, "description": "Missing, invalid or revoked API token"},
    404: {"model": MessageErrorBody, "description": "No such object in the token's team"},
    409: {"model": MessageErrorBody, "description": "Conflicts with the object's state"},
    413: {"model": MessageErrorBody, "description": "Request body larger than 1 MiB"},
    415: {"model": ValidationErrorBody, "description": "Body is not application/json"},
    422: {"model": ValidationErrorBody, "description": "Invalid attributes"},
    429: {
        "model": MessageErrorBody,
        "description": "Rate limit exceeded (per API token, or per address without one)",
        "headers": {
            "Retry-After": {
                "description": "Seconds to wait before the next request is allowed.",
                "schema": {"type": "integer", "minimum": 1},
            }
        },
    },
}


class NoAttributes(BaseModel):
    """The body of an action that takes no attributes: optional, `{}` when sent."""

    model_config = ConfigDict(extra="forbid")


def request_body(model: type[BaseModel], *, not_null: Iterable[str] = ()) -> dict[str, Any]:
    """`openapi_extra` describing a JSON request body validated by model.

    The body is documented as required exactly when the model has a required field: an
    empty body reads as `{}` (http/body.py), which such a model refuses (422) and any other
    model accepts. Nested models are inlined: the generated `$defs` would otherwise be
    referenced from components that FastAPI never registers for bodies it does not parse.

    not_null: optional fields whose `None` default only means "not sent": the request may
    leave them out but may not send them as null (a 422), so null is not documented.
    """
    generated = model.model_json_schema()
    schema = _inline(generated, generated.get("$defs", {}))
    for name in not_null:
        schema["properties"][name] = _without_null(schema["properties"][name])
    required = any(field.is_required() for field in model.model_fields.values())
    return {
        "requestBody": {
            "required": required,
            "content": {"application/json": {"schema": schema}},
        }
    }


def _without_null(prop: dict[str, Any]) -> dict[str, Any]:
    options = [option for option in prop.get("anyOf", []) if option != {"type": "null"}]
    rest = {key: value for key, value in prop.items() if key not in ("anyOf", "default")}
    if not options:
        return rest
    return {**rest, **options[0]} if len(options) == 1 else {**rest, "anyOf": options}


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[1]], defs)
        return {key: _inline(value, defs) for key, value in node.items() if key != "$defs"}
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    return node


class PaginationDoc(BaseModel):
    first: str
    last: str
    prev: str | None
    next: str | None


A = TypeVar("A", bound=BaseModel)


class ResourceDoc(BaseModel, Generic[A]):
    id: str
    type: str
    attributes: A


class SingleDoc(BaseModel, Generic[A]):
    data: ResourceDoc[A]


class ListDoc(BaseModel, Generic[A]):
    data: list[ResourceDoc[A]]
    pagination: PaginationDoc
