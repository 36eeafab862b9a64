"""The five routes of a plain collection: create, list, get, update and delete one object,
where the service does all the work (notification channels, escalation policies).

Each route parses its body, opens the transaction, calls the service and renders the object
the same way for every such collection. The domain's modules follow one convention
(`collection_of` reads it): its service has TYPE, get(session, team_id=, object_id=),
render(obj, team_name), make(db, caller, ctx, data), change(db, caller, obj, ctx, data),
remove(db, obj) and page(db, caller, paging); its schemas have PREFIX (the URL), NOUN, PLURAL,
ABOUT (the create route's description), ATTRIBUTES, CREATE, UPDATE and NOT_NULL.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any, Final, Generic, TypeVar

from fastapi import APIRouter, Path
from fastapi.responses import Response
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.http.body import JsonObject
from watchpost.http.crud import Finder, Routes
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, single
from watchpost.http.pagination import Paging
from watchpost.listing import Page, PageRequest, Resource
from watchpost.problems import accepted, checked
from watchpost.teams.service import Principal

T = TypeVar("T")

SCHEMA_NAMES: Final = {
    "noun": "NOUN",
    "plural": "PLURAL",
    "attributes": "ATTRIBUTES",
    "create_body": "CREATE",
    "update_body": "UPDATE",
    "not_null": "NOT_NULL",
    "about": "ABOUT",
}
"""Collection field → the schemas module's constant."""
SERVICE_NAMES: Final = ("render", "make", "change", "remove", "page")
"""The service module's functions the routes call."""
ObjectId = Annotated[str, Path(alias="id")]


@dataclass(frozen=True)
class Collection(Generic[T]):
    router: APIRouter
    noun: str
    """In words, for the summaries: "notification channel"."""
    plural: str
    attributes: type[BaseModel]
    create_body: type[BaseModel]
    update_body: type[BaseModel]
    not_null: tuple[str, ...]
    find: Finder[T]
    render: Callable[[T, str], Resource]
    """The object as the API shows it, given the team's name."""
    make: Callable[[AsyncSession, Principal, AppContext, Any], Awaitable[T]]
    change: Callable[[AsyncSession, Principal, T, AppContext, Any], Awaitable[object]]
    remove: Callable[[AsyncSession, T], Awaitable[object]]
    page: Callable[[AsyncSession, Principal, PageRequest], Awaitable[Page[T]]]
    about: str | None = None

    @classmethod
    def of(cls, service: Any, schemas: Any) -> Collection[Any]:
        """The collection of a domain's service and schemas modules (the convention above)."""
        fields = {name: getattr(schemas, constant) for name, constant in SCHEMA_NAMES.items()}
        fields |= {name: getattr(service, name) for name in SERVICE_NAMES}
        router = APIRouter(prefix=schemas.PREFIX, tags=[schemas.PLURAL])
        return cls(router, find=Finder(service.get, service.TYPE, "object_id"), **fields)

    def routers(self) -> tuple[APIRouter]:
        """The router with the five routes declared (what an endpoints module serves)."""
        self.install()
        return (self.router,)

    def install(self) -> None:
        """Declare the five routes on the router."""
        routes = Routes(self.router, self.attributes)
        noun = self.noun

        @routes.create(
            "", summary=f"Create a {noun}", description=self.about, body=self.create_body
        )
        async def create(body: JsonObject, caller: Caller, ctx: Context, db: WriteDb) -> Response:
            data = accepted(*checked(self.create_body, body))
            async with db.begin():
                made = await self.make(db, caller, ctx, data)
            return single(self.render(made, caller.team_name), status=201)

        @routes.list("", summary=f"List {self.plural}")
        async def list_all(caller: Caller, db: ReadDb, paging: Paging) -> Response:
            page = await self.page(db, caller, paging)
            return listing((self.render(row, caller.team_name) for row in page.data), page.links)

        @routes.get("/{id}", summary=f"Get a {noun}")
        async def get(object_id: ObjectId, caller: Caller, db: ReadDb) -> Response:
            return single(self.render(await self.find(db, caller, object_id), caller.team_name))

        @routes.update(
            "/{id}",
            summary=f"Update a {noun}",
            body=self.update_body,
            not_null=self.not_null,
        )
        async def update(
            object_id: ObjectId, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
        ) -> Response:
            async with db.begin():
                found = await self.find(db, caller, object_id)
                data = accepted(*checked(self.update_body, body, not_null=self.not_null))
                await self.change(db, caller, found, ctx, data)
            return single(self.render(found, caller.team_name))

        @routes.delete("/{id}", summary=f"Delete a {noun}")
        async def delete(object_id: ObjectId, caller: Caller, db: WriteDb) -> Response:
            return await self.find.delete(
                db, caller, object_id, lambda found: self.remove(db, found)
            )
