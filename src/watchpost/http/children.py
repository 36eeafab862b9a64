"""The routes of a child collection: objects that live under a parent object (a status page's
sections, resources and status reports, a report's status updates, an incident's comments,
an on-call calendar's events), as http/collection.py's are for plain collections.

Every route first reads the parent its path names (asking the service to lock it for a
write), then the child, so a child is only ever reached through the caller's own parent. A
domain's service (`ChildService`) says where its children are (PATH, KEY), how the parent
and a child are found, how a response shows them, and does the work of each write with the
route's `Within` and the body parsed by the route's model (mypy checks the models against
the service). The domain then declares the routes it offers, in the order the app serves
them; a list route is given the function that answers it (a page, or all at once). The
endpoints are named after the NOUN (their operationIds): create_section, list_sections,
get_section, update_section, delete_section; `name` sets another.

No `from __future__ import annotations` here: the endpoints' path-id dependencies are made
per collection, and FastAPI reads them off the endpoints' evaluated annotations.
"""

import inspect
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Generic, Protocol, TypeVar, Unpack

from fastapi import Depends, Path, Request
from fastapi.responses import Response
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.http.body import JsonObject
from watchpost.http.crud import CHILD_LIST_ERRORS, Errors, Routes, Words
from watchpost.http.deps import Caller, Context, WriteDb, read_session, write_session
from watchpost.http.envelope import no_content
from watchpost.http.errors import READ_ERRORS
from watchpost.http.pagination import page_request
from watchpost.listing import PageRequest
from watchpost.problems import accepted, checked, parse
from watchpost.teams.service import Principal
from watchpost.validation import object_id

P = TypeVar("P")
T = TypeVar("T")
C = TypeVar("C", bound=BaseModel)
U = TypeVar("U", bound=BaseModel)
C_in = TypeVar("C_in", bound=BaseModel, contravariant=True)
U_in = TypeVar("U_in", bound=BaseModel, contravariant=True)
E = TypeVar("E", bound=Callable[..., Awaitable[Response]])
A = TypeVar("A")
KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY

PathIds = tuple[str, ...]
"""A route's path ids, outermost first."""
JsonBody = dict[str, Any]
"""A request's JSON object, as sent."""


@dataclass(frozen=True)
class Within(Generic[P]):
    """A route's work within one parent: its session, the caller, the parent and the time."""

    db: AsyncSession
    caller: Principal
    parent: P
    now: datetime


class ChildService(Protocol[P, T, C_in, U_in]):
    """What a child collection's service offers its routes (an object, or a module)."""

    @property
    def PATH(self) -> str:
        """The children's path on the router: "/{status_page_id}/sections"."""
        ...

    @property
    def KEY(self) -> str:
        """The path parameter naming one child: "section_id"."""
        ...

    @property
    def NOUN(self) -> str:
        """The child in the endpoints' names: "section" (create_section…)."""
        ...

    @property
    def PLURAL(self) -> str:
        """The children in the list endpoint's name: "sections" (list_sections)."""
        ...

    @property
    def TYPE(self) -> str:
        """The child's resource type (the 404 of a path id that is no id)."""
        ...

    async def parent(
        self, db: AsyncSession, caller: Principal, ids: PathIds, now: datetime, *, lock: bool
    ) -> P:
        """The caller's parent object the path's ids name (404 when none), locked for a
        write when `lock` (where the service's writes need it: a status page's are)."""
        ...

    async def get(self, at: Within[P], child_id: int, /) -> T:
        """The parent's child of that id (404 when none)."""
        ...

    async def answer(self, at: Within[P], row: T, status: int, /) -> Response:
        """The response showing one child (status 200, or 201 for a created one)."""
        ...

    async def make(self, at: Within[P], data: C_in, /) -> T:
        """The child made in the parent from the create route's parsed body."""
        ...

    async def change(self, at: Within[P], row: T, data: U_in, /) -> object:
        """The update route's parsed body applied to the child."""
        ...

    async def remove(self, at: Within[P], row: T, /) -> object: ...


def _path_ids(keys: list[str], described: Mapping[str, str]) -> Callable[..., Awaitable[PathIds]]:
    """A dependency reading the path parameters `keys`, in that order (the order they are
    documented in, each with its description in `described`, if any). Async, as FastAPI runs
    a plain `def` dependency in a thread."""

    async def path_ids(**values: str) -> PathIds:
        return tuple(values[key] for key in keys)

    path_ids.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(
                key, KEYWORD_ONLY, annotation=Annotated[str, Path(description=described.get(key))]
            )
            for key in keys
        ]
    )
    return path_ids


class Children(Generic[P, T, C, U]):
    """The routes of one kind of child object at the service's PATH on `routes`' router, and
    of one of them at PATH/{KEY}.

    `described` documents path parameters. With `reads_write` the reading routes too take
    the write session, in a transaction: for a parent whose read may write (on-call's
    default calendar is made when first named)."""

    def __init__(
        self,
        routes: Routes,
        service: ChildService[P, T, C, U],
        *,
        described: Mapping[str, str] | None = None,
        reads_write: bool = False,
    ) -> None:
        self.routes, self.service = routes, service
        self.path, self.one = service.PATH, f"{service.PATH}/{{{service.KEY}}}"
        parent_keys = re.findall(r"{(\w+)}", service.PATH)
        self.depth = len(parent_keys)
        self.parent_ids = _path_ids(parent_keys, described or {})
        self.ids = _path_ids([*parent_keys, service.KEY], described or {})
        self.reads_write = reads_write
        self.reading = write_session if reads_write else read_session

    def create(self, body: type[C], *, name: str | None = None, **words: Unpack[Words]) -> None:
        """POST path: the child made from the body in the locked parent; 201."""

        async def make(at: Within[P], ids: PathIds, sent: JsonBody) -> T:
            return await self.service.make(at, parse(body, sent))

        endpoint = self._with_body(self.parent_ids, make, 201)
        self.routes.create(self.path, body=body, **words)(
            _named(endpoint, name, "create", self.service.NOUN)
        )

    def list(
        self,
        listed: Callable[[Within[P], PageRequest], Awaitable[Response]],
        *,
        name: str | None = None,
        errors: Errors = CHILD_LIST_ERRORS,
        **words: Unpack[Words],
    ) -> None:
        """GET path: a page of the parent's children, as `listed` answers it."""
        self._list(page_request, listed, name, errors, words)

    def list_all(
        self,
        listed: Callable[[Within[P], str], Awaitable[Response]],
        *,
        name: str | None = None,
        errors: Errors = CHILD_LIST_ERRORS,
        **words: Unpack[Words],
    ) -> None:
        """GET path: all the parent's children at once, not paged (a bounded few): `listed`
        answers them, given the request's URL."""
        self._list(_url, listed, name, errors, words)

    def get(self, *, name: str | None = None, **words: Unpack[Words]) -> None:
        """GET path/{key}: one child."""

        async def endpoint(
            ids: Annotated[PathIds, Depends(self.ids)],
            caller: Caller,
            ctx: Context,
            db: Annotated[AsyncSession, Depends(self.reading)],
        ) -> Response:
            async with self._read(db):
                at, row = await self._find(db, caller, ids, ctx.clock.now(), lock=False)
                return await self.service.answer(at, row, 200)

        self.routes.get(self.one, **words)(_named(endpoint, name, "get", self.service.NOUN))

    def update(
        self,
        body: type[U],
        *,
        not_null: Iterable[str] = (),
        nulls_first: bool = False,
        name: str | None = None,
        **words: Unpack[Words],
    ) -> None:
        """PATCH path/{key}: the body's fields change the child, its parent locked.

        `not_null` names the fields a null cannot clear (documented; with `nulls_first` such
        nulls are refused before the model reads the rest, else the service refuses them)."""
        not_null = tuple(not_null)

        async def change(at: Within[P], ids: PathIds, sent: JsonBody) -> T:
            row = await self._child(at, ids[-1])
            if nulls_first:
                data = accepted(*checked(body, sent, not_null=not_null))
            else:
                data = parse(body, sent)
            await self.service.change(at, row, data)
            return row

        endpoint = self._with_body(self.ids, change, 200)
        named = _named(endpoint, name, "update", self.service.NOUN)
        self.routes.update(self.one, body=body, not_null=not_null, **words)(named)

    def delete(
        self,
        *,
        name: str | None = None,
        errors: Errors = READ_ERRORS,
        **words: Unpack[Words],
    ) -> None:
        """DELETE path/{key}: the child removed, its parent locked; 204."""

        async def endpoint(
            ids: Annotated[PathIds, Depends(self.ids)],
            caller: Caller,
            ctx: Context,
            db: WriteDb,
        ) -> Response:
            async with db.begin():
                await self.service.remove(
                    *await self._find(db, caller, ids, ctx.clock.now(), lock=True)
                )
            return no_content()

        named = _named(endpoint, name, "delete", self.service.NOUN)
        self.routes.delete(self.one, errors=errors, **words)(named)

    def _list(
        self,
        asked: Callable[..., Awaitable[A]],
        listed: Callable[[Within[P], A], Awaitable[Response]],
        name: str | None,
        errors: Errors,
        words: Words,
    ) -> None:
        """GET path: the parent's children `listed` answers, as the request `asked`."""

        async def endpoint(
            parent_ids: Annotated[PathIds, Depends(self.parent_ids)],
            caller: Caller,
            ctx: Context,
            db: Annotated[AsyncSession, Depends(self.reading)],
            how: Annotated[A, Depends(asked)],
        ) -> Response:
            async with self._read(db):
                at = await self._within(db, caller, parent_ids, ctx.clock.now(), lock=False)
                return await listed(at, how)

        named = _named(endpoint, name, "list", self.service.PLURAL)
        self.routes.list(self.path, errors=errors, **words)(named)

    def _read(self, db: AsyncSession) -> AbstractAsyncContextManager[object]:
        """Where a reading route works: the write session's transaction with `reads_write`,
        else the read session's own."""
        return db.begin() if self.reads_write else nullcontext()

    def _with_body(
        self,
        path_ids: Callable[..., Awaitable[PathIds]],
        work: Callable[[Within[P], PathIds, JsonBody], Awaitable[T]],
        status: int,
    ) -> Callable[..., Awaitable[Response]]:
        """An endpoint taking a JSON body: in one transaction, the parent the path names
        locked, the child `work` makes or changes with the body, answered with `status`."""

        async def endpoint(
            ids: Annotated[PathIds, Depends(path_ids)],
            sent: JsonObject,
            caller: Caller,
            ctx: Context,
            db: WriteDb,
        ) -> Response:
            async with db.begin():
                at = await self._within(db, caller, ids, ctx.clock.now(), lock=True)
                return await self.service.answer(at, await work(at, ids, sent), status)

        return endpoint

    async def _within(
        self, db: AsyncSession, caller: Principal, ids: PathIds, now: datetime, *, lock: bool
    ) -> Within[P]:
        """The route's work within the parent the path's ids (the first of them) name."""
        parent = await self.service.parent(db, caller, ids[: self.depth], now, lock=lock)
        return Within(db, caller, parent, now)

    async def _child(self, at: Within[P], child_id: str) -> T:
        """The parent's child the path's last id names."""
        return await self.service.get(at, object_id(child_id, self.service.TYPE))

    async def _find(
        self,
        db: AsyncSession,
        caller: Principal,
        ids: PathIds,
        now: datetime,
        *,
        lock: bool,
    ) -> tuple[Within[P], T]:
        """The parent the path's ids name, and its child the last one names."""
        at = await self._within(db, caller, ids, now, lock=lock)
        return at, await self._child(at, ids[-1])


async def _url(request: Request) -> str:
    """The request's URL (an unpaged list's links); async, as FastAPI runs a plain `def`
    dependency in a thread."""
    return str(request.url)


def _named(endpoint: E, name: str | None, verb: str, noun: str) -> E:
    """The endpoint under its name (its operationId): `name`, else "<verb>_<noun>"."""
    endpoint.__name__ = endpoint.__qualname__ = name or f"{verb}_{noun}"
    return endpoint
