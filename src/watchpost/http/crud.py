"""The usual routes of a collection: create, list, get, update and delete one object.

Each function declares a route on a router with the answers that kind of route documents
(the document it returns, the errors it can answer, its request body), so every domain's
collections document them alike. `document` is the model of the success body:
`SingleDoc[Attributes]` or `ListDoc[Attributes]`, or a domain's own document model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fastapi import APIRouter
from fastapi.types import DecoratedCallable
from pydantic import BaseModel

from watchpost.http.errors import READ_ERRORS, WRITE_ERRORS, error_responses
from watchpost.http.openapi import request_body

Decorator = Callable[[DecoratedCallable], DecoratedCallable]
"""What APIRouter's route decorators return: they register the endpoint and return it."""
Errors = dict[int | str, dict[str, Any]]

LIST_ERRORS = error_responses(401, 422)
"""What listing a collection can answer besides its page."""
CHILD_LIST_ERRORS = error_responses(401, 404, 422)
"""What listing an object's children can answer besides their page."""


def create_route(
    router: APIRouter,
    path: str,
    *,
    summary: str,
    document: type[BaseModel],
    body: type[BaseModel],
    description: str | None = None,
    errors: Errors = WRITE_ERRORS,
    not_null: Iterable[str] = (),
) -> Decorator:
    """POST `path`: 201 with the created object's document."""
    return router.post(
        path,
        status_code=201,
        summary=summary,
        description=description,
        responses={201: {"model": document}, **errors},
        openapi_extra=request_body(body, not_null=not_null),
    )


def list_route(
    router: APIRouter,
    path: str,
    *,
    summary: str,
    document: type[BaseModel],
    description: str | None = None,
    errors: Errors = LIST_ERRORS,
) -> Decorator:
    """GET `path`: a page of the collection."""
    return router.get(
        path,
        summary=summary,
        description=description,
        responses={200: {"model": document}, **errors},
    )


def get_route(
    router: APIRouter,
    path: str,
    *,
    summary: str,
    document: type[BaseModel],
    description: str | None = None,
) -> Decorator:
    """GET `path`: one object's document."""
    return router.get(
        path,
        summary=summary,
        description=description,
        responses={200: {"model": document}, **READ_ERRORS},
    )


def update_route(
    router: APIRouter,
    path: str,
    *,
    summary: str,
    document: type[BaseModel],
    body: type[BaseModel],
    not_null: Iterable[str] = (),
    description: str | None = None,
) -> Decorator:
    """PATCH `path`: the sent fields change; 200 with the object's document."""
    return router.patch(
        path,
        summary=summary,
        description=description,
        responses={200: {"model": document}, **WRITE_ERRORS},
        openapi_extra=request_body(body, not_null=not_null),
    )


def delete_route(
    router: APIRouter,
    path: str,
    *,
    summary: str,
    description: str | None = None,
    errors: Errors = READ_ERRORS,
) -> Decorator:
    """DELETE `path`: 204, no body."""
    return router.delete(
        path, status_code=204, summary=summary, description=description, responses=errors
    )
