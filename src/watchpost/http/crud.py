"""The usual routes of one kind of object: create, list, get, update and delete one.

`Routes` declares them on a router with the answers each kind of route documents (the
document it returns, the errors it can answer, its request body), so every domain's
collections document them alike. `Finder` reads the object a route's path id names. `Writer`
is a writing route's `Writing` (the argument of the domains' from-body functions).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Annotated, Any, Generic, NotRequired, TypedDict, TypeVar, Unpack

from fastapi import APIRouter, Depends
from fastapi.responses import Response
from fastapi.types import DecoratedCallable
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.http.deps import Caller, Context, WriteDb
from watchpost.http.envelope import no_content
from watchpost.http.errors import READ_ERRORS, WRITE_ERRORS, error_responses
from watchpost.http.openapi import ListDoc, NoAttributes, SingleDoc, request_body
from watchpost.teams.service import Principal
from watchpost.validation import object_id
from watchpost.writing import Team, Writing

Errors = dict[int | str, dict[str, Any]]
Model = type[BaseModel]
T = TypeVar("T")

LIST_ERRORS = error_responses(401, 422)
"""What listing a collection can answer besides its page."""
CHILD_LIST_ERRORS = error_responses(401, 404, 422)
"""What listing an object's children can answer besides their page."""


async def _writing(caller: Caller, ctx: Context, db: WriteDb) -> Writing:
    return Writing.of(db, caller, ctx)


Writer = Annotated[Writing, Depends(_writing)]
"""The calling token's team writing in the request's write session, now by the app's clock."""


def listed_team(caller: Principal, team_name: str | None) -> int:
    """The team whose objects a list route's `team_name` filter lists (the hosted API's global
    tokens send it): the token's when the filter is absent, empty or names it; else none (0 is
    no team's id)."""
    return caller.team_id if team_name in (None, "", caller.team_name) else 0


class Words(TypedDict):
    """What a route says of itself in the OpenAPI document."""

    summary: str
    description: NotRequired[str | None]


class Routes:
    """Route decorators for one kind of object on `router`; each registers the endpoint it
    decorates and returns it unchanged.

    `attributes` is the model of its attributes: an object's document is
    `SingleDoc[attributes]`, a page of them `ListDoc[attributes]`, unless `one` and `many`
    name other document models.
    """

    def __init__(
        self,
        router: APIRouter,
        attributes: Model | None = None,
        *,
        one: Model | None = None,
        many: Model | None = None,
    ) -> None:
        self.router = router
        self.one: Model = one or SingleDoc[attributes]  # type: ignore[valid-type]
        self.many: Model = many or ListDoc[attributes]  # type: ignore[valid-type]

    def create(
        self,
        path: str,
        *,
        body: Model,
        not_null: Iterable[str] = (),
        errors: Errors = WRITE_ERRORS,
        **words: Unpack[Words],
    ) -> Callable[[DecoratedCallable], DecoratedCallable]:
        """POST: 201 with the created object's document."""
        return self._route("POST", path, 201, errors, body, not_null, **words)

    def list(
        self, path: str, *, errors: Errors = LIST_ERRORS, **words: Unpack[Words]
    ) -> Callable[[DecoratedCallable], DecoratedCallable]:
        """GET: a page of objects."""
        return self.router.get(path, responses={200: {"model": self.many}, **errors}, **words)

    def get(
        self, path: str, **words: Unpack[Words]
    ) -> Callable[[DecoratedCallable], DecoratedCallable]:
        """GET: one object's document."""
        return self._route("GET", path, None, READ_ERRORS, None, (), **words)

    def update(
        self, path: str, *, body: Model, not_null: Iterable[str] = (), **words: Unpack[Words]
    ) -> Callable[[DecoratedCallable], DecoratedCallable]:
        """PATCH: the sent fields change; 200 with the object's document."""
        return self._route("PATCH", path, None, WRITE_ERRORS, body, not_null, **words)

    def action(
        self,
        path: str,
        *,
        body: Model = NoAttributes,
        errors: Errors = WRITE_ERRORS,
        **words: Unpack[Words],
    ) -> Callable[[DecoratedCallable], DecoratedCallable]:
        """POST to an object (acknowledge, retry, test…): 200 with the object's document;
        `body` is what it takes (by default nothing but an optional `{}`)."""
        return self._route("POST", path, None, errors, body, (), **words)

    def delete(
        self, path: str, *, errors: Errors = READ_ERRORS, **words: Unpack[Words]
    ) -> Callable[[DecoratedCallable], DecoratedCallable]:
        """DELETE: 204, no body."""
        return self.router.delete(path, status_code=204, responses=errors, **words)

    def _route(
        self,
        method: str,
        path: str,
        status_code: int | None,
        errors: Errors,
        body: Model | None,
        not_null: Iterable[str],
        **words: Unpack[Words],
    ) -> Callable[[DecoratedCallable], DecoratedCallable]:
        """A route answering the object's document; `body` is the JSON body it takes."""
        return self.router.api_route(
            path,
            methods=[method],
            status_code=status_code,
            responses={status_code or 200: {"model": self.one}, **errors},
            openapi_extra=None if body is None else request_body(body, not_null=not_null),
            **words,
        )


class Finder(Generic[T]):
    """The caller's object a path id names: `get(session, team_id=…, <key>=id)`, the
    service's read of one object; an id that is no id names none (404)."""

    def __init__(self, get: Callable[..., Awaitable[T]], resource_type: str, key: str) -> None:
        self.get = get
        self.resource_type = resource_type
        self.key = key

    async def __call__(self, db: AsyncSession, caller: Team, raw_id: str) -> T:
        found = object_id(raw_id, self.resource_type)
        return await self.get(db, team_id=caller.team_id, **{self.key: found})

    async def update(
        self,
        write: Writing,
        raw_id: str,
        body: dict[str, Any],
        update: Callable[[Writing, T, dict[str, Any]], Awaitable[object]],
    ) -> T:
        """A PATCH route's change: the object found, `update(write, found, body)` (the domain's
        update_from_body), one transaction; the object as changed."""
        async with write.session.begin():
            found = await self(write.session, write, raw_id)
            await update(write, found, body)
        return found

    async def delete(
        self, write: Writing, raw_id: str, delete: Callable[[Writing, T], Awaitable[object]]
    ) -> Response:
        """A DELETE route's answer: the object found, `delete(write, found)` (the domain's
        delete), one transaction, 204."""
        async with write.session.begin():
            await delete(write, await self(write.session, write, raw_id))
        return no_content()
