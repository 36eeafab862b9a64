"""The five routes of a plain collection: create, list, get, update and delete one object,
where the service does all the work (notification channels, escalation policies).

Each route parses its body, opens the transaction, calls the service and renders the object
the same way for every such collection. A domain declares its collection with its service and
schemas modules, `Collection.of(service, schemas)`, which mypy checks against the two
protocols below: the service (`Service`) has TYPE, get, render, make, change, remove and
page; the schemas (`Schemas`) have PREFIX (the URL), NOUN, PLURAL, ABOUT (the create route's
description), ATTRIBUTES, CREATE, UPDATE and NOT_NULL. A function renamed or of another
shape, or bodies the service does not take, fail the type check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Generic, Protocol, TypeVar

from fastapi import APIRouter, Path
from fastapi.responses import Response
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.http.body import JsonObject
from watchpost.http.crud import Finder, Routes, Writer
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, single
from watchpost.http.pagination import Paging
from watchpost.listing import Page, PageRequest, Resource
from watchpost.problems import accepted, checked
from watchpost.teams.service import Principal

T = TypeVar("T")
C = TypeVar("C", bound=BaseModel)
U = TypeVar("U", bound=BaseModel)
C_in = TypeVar("C_in", bound=BaseModel, contravariant=True)
U_in = TypeVar("U_in", bound=BaseModel, contravariant=True)
C_out = TypeVar("C_out", bound=BaseModel, covariant=True)
U_out = TypeVar("U_out", bound=BaseModel, covariant=True)
ObjectId = Annotated[str, Path(alias="id")]


class Service(Protocol[T, C_in, U_in]):
    """What a plain collection's service offers the routes (a module or an object)."""

    @property
    def TYPE(self) -> str: ...

    async def get(self, db: AsyncSession, *, team_id: int, object_id: int) -> T: ...

    def render(self, row: T, team_name: str, /) -> Resource:
        """The object as the API shows it, given the team's name."""
        ...

    async def make(
        self, db: AsyncSession, caller: Principal, ctx: AppContext, data: C_in, /
    ) -> T: ...

    async def change(
        self, db: AsyncSession, caller: Principal, row: T, ctx: AppContext, data: U_in, /
    ) -> object: ...

    async def remove(self, db: AsyncSession, row: T, /) -> object: ...

    async def page(
        self, db: AsyncSession, caller: Principal, paging: PageRequest, /
    ) -> Page[T]: ...


class Schemas(Protocol[C_out, U_out]):
    """What a plain collection's schemas module declares for the routes and the document."""

    @property
    def PREFIX(self) -> str: ...

    @property
    def NOUN(self) -> str:
        """In words, for the summaries: "notification channel"."""
        ...

    @property
    def PLURAL(self) -> str: ...

    @property
    def ABOUT(self) -> str: ...

    @property
    def ATTRIBUTES(self) -> type[BaseModel]: ...

    @property
    def CREATE(self) -> type[C_out]: ...

    @property
    def UPDATE(self) -> type[U_out]: ...

    @property
    def NOT_NULL(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Collection(Generic[T, C, U]):
    router: APIRouter
    service: Service[T, C, U]
    schemas: Schemas[C, U]
    find: Finder[T]

    @classmethod
    def of(cls, service: Service[T, C, U], schemas: Schemas[C, U]) -> Collection[T, C, U]:
        """The collection of a domain's service and schemas (the protocols above)."""
        router = APIRouter(prefix=schemas.PREFIX, tags=[schemas.PLURAL])
        return cls(router, service, schemas, Finder(service.get, service.TYPE, "object_id"))

    def routers(self) -> tuple[APIRouter]:
        """The router with the five routes declared (what an endpoints module serves)."""
        self.install()
        return (self.router,)

    def install(self) -> None:
        """Declare the five routes on the router."""
        service, schemas, find = self.service, self.schemas, self.find
        routes = Routes(self.router, schemas.ATTRIBUTES)
        noun, create_body, update_body = schemas.NOUN, schemas.CREATE, schemas.UPDATE

        @routes.create("", summary=f"Create a {noun}", description=schemas.ABOUT, body=create_body)
        async def create(body: JsonObject, caller: Caller, ctx: Context, db: WriteDb) -> Response:
            data = accepted(*checked(create_body, body))
            async with db.begin():
                made = await service.make(db, caller, ctx, data)
            return single(service.render(made, caller.team_name), status=201)

        @routes.list("", summary=f"List {schemas.PLURAL}")
        async def list_all(caller: Caller, db: ReadDb, paging: Paging) -> Response:
            page = await service.page(db, caller, paging)
            rows = (service.render(row, caller.team_name) for row in page.data)
            return listing(rows, page.links)

        @routes.get("/{id}", summary=f"Get a {noun}")
        async def get(object_id: ObjectId, caller: Caller, db: ReadDb) -> Response:
            return single(service.render(await find(db, caller, object_id), caller.team_name))

        @routes.update(
            "/{id}", summary=f"Update a {noun}", body=update_body, not_null=schemas.NOT_NULL
        )
        async def update(
            object_id: ObjectId, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
        ) -> Response:
            async with db.begin():
                found = await find(db, caller, object_id)
                data = accepted(*checked(update_body, body, not_null=schemas.NOT_NULL))
                await service.change(db, caller, found, ctx, data)
            return single(service.render(found, caller.team_name))

        @routes.delete("/{id}", summary=f"Delete a {noun}")
        async def delete(object_id: ObjectId, write: Writer) -> Response:
            return await find.delete(
                write, object_id, lambda write, found: service.remove(write.session, found)
            )
