"""OpenAPI fragments for the shared shapes (error bodies, request bodies)."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field


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
    415: {"model": ValidationErrorBody, "description": "Body is not application/json"},
    422: {"model": ValidationErrorBody, "description": "Invalid attributes"},
}


def request_body(model: type[BaseModel]) -> dict[str, Any]:
    """`openapi_extra` describing a JSON request body validated by model.

    The body is documented as required exactly when the model has a required field: an
    empty body reads as `{}` (http/body.py), which such a model refuses (422) and any other
    model accepts. Nested models are inlined: the generated `$defs` would otherwise be
    referenced from components that FastAPI never registers for bodies it does not parse.
    """
    schema = model.model_json_schema()
    required = any(field.is_required() for field in model.model_fields.values())
    return {
        "requestBody": {
            "required": required,
            "content": {"application/json": {"schema": _inline(schema, schema.get("$defs", {}))}},
        }
    }


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
