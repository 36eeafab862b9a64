"""/locations: the places checks run from, as the team sees them (the operator's shared
locations and its own private ones), and the forms to create, change and delete its own.

Everyone in the team may look; admins (Action.EDIT) create a private location of the team,
change its name, region and offline delay. The operator's locations are read only here, as
in the API (`watchpost location …` manages them). The forms build the body the API receives
and go through the same parser and service (locations/schemas.py, service.py), so their
errors are the API's. One location's page, its deletion and its probe tokens:
console/location_tokens.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.auth import Refused, Viewer, permitted_form, read_db
from watchpost.console.form_kit import FormPage, Saved, save, show
from watchpost.console.forms import Field, Raw, body_of, field_of, initial, posted
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import render
from watchpost.http.deps import request_sessions
from watchpost.locations.models import DEFAULT_OFFLINE_AFTER_S, Location
from watchpost.people.roles import Action
from watchpost.probing import service
from watchpost.probing.schemas import LocationCreate, parse_create, parse_update
from watchpost.validation import object_id
from watchpost.writing import Writing

router = console_router()
LOCATION_SAVED: Final = Saved(service.LOCATION, lambda found: f"/locations/{found}")
SECTION: Final = "locations"
REGION_WORDS: Final = {
    "us": "United States (us)",
    "eu": "Europe (eu)",
    "as": "Asia (as)",
    "au": "Australia (au)",
}
STATUS_WORDS: Final = {"online": "Online", "offline": "Offline", "unknown": "Not heard from"}


def kind_of(location: Location, team_id: int) -> str:
    """Whose the location is, in words."""
    if location.is_server:
        return "This server"
    if location.team_id == team_id:
        return "Your team's (private)"
    return "Shared, private" if location.private else "Shared"


def fields() -> list[Field]:
    """name, region, offline_after: the API's fields (LocationCreate), in people's words."""
    return [
        field_of(LocationCreate, "name", label="Name", required=True, section="Location"),
        field_of(
            LocationCreate,
            "region",
            label="Region",
            required=True,
            section="Location",
            hint="Monitors checked in this region (their Regions) are not sent here: a team's "
            "location checks only the monitors that name it.",
            choices=list(REGION_WORDS.items()),
        ),
        field_of(
            LocationCreate,
            "offline_after",
            label="Offline after (seconds)",
            section="Location",
            hint=f"{service.MIN_OFFLINE_AFTER_S} to {service.MAX_OFFLINE_AFTER_S}: how long "
            "the location's agents may be silent before its checks no longer count "
            f"(default {DEFAULT_OFFLINE_AFTER_S}).",
        ),
    ]


def values_of(location: Location) -> dict[str, Any]:
    return {
        "name": location.name,
        "region": location.region,
        "offline_after": location.offline_after_s,
    }


def audit_name(location: Location) -> str:
    return location.name


async def own(db: AsyncSession, who: Viewer, location_id: int) -> Location:
    """The team's own location (another team's: 404; the operator's: refused)."""
    location = await service.get_for_team(db, team_id=who.team_id, location_id=location_id)
    if location.team_id != who.team_id:
        raise Refused(
            f"The location {location.name} is the server operator's: it is managed with the "
            "`watchpost location` commands, not here."
        )
    return location


@router.get("/locations")
async def locations_page(request: Request, who: Signed) -> Response:
    db = await request_sessions(request).read()
    rows = (await db.scalars(service.visible(who.team_id).order_by(Location.name))).all()
    return render(
        request,
        "locations.html",
        viewer=who,
        section=SECTION,
        title="Locations",
        rows=[(row, kind_of(row, who.team_id), service.status(row)) for row in rows],
        status_words=STATUS_WORDS,
    )


def _form(
    values: Mapping[str, Raw] | None, location: Location | None = None, *, raw: bool = False
) -> FormPage:
    shown = fields()
    where = "/locations/new" if location is None else f"/locations/{location.id}/edit"
    defaults: dict[str, Any] = {"offline_after": DEFAULT_OFFLINE_AFTER_S}
    if location is not None:
        defaults = values_of(location)
    return FormPage(
        title="New location" if location is None else f"Edit location {location.name}",
        action=where,
        back="/locations" if location is None else f"/locations/{location.id}",
        submit="Create location" if location is None else "Save location",
        fields=shown,
        values=values if raw and values is not None else initial(shown, defaults),
        section=SECTION,
    )


@router.get("/locations/new")
async def new_location(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    return show(request, who, _form(None))


@router.post("/locations/new")
async def create_location(request: Request, who: Signed) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    raw = posted(fields(), form)
    body = body_of(fields(), raw, creating=True)

    async def store(write: Writing) -> tuple[str, int, str]:
        location = await service.create_team_location(write, parse_create(body))
        return "location.created", location.id, audit_name(location)

    async def again(_db: AsyncSession) -> FormPage:
        return _form(raw, raw=True)

    return await save(request, who, LOCATION_SAVED, store=store, again=again)


@router.get("/locations/{location_id}/edit")
async def edit_location(request: Request, who: Signed, location_id: str) -> Response:
    db = await read_db(request, who, Action.EDIT)
    location = await own(db, who, object_id(location_id, service.LOCATION))
    return show(request, who, _form(None, location))


@router.post("/locations/{location_id}/edit")
async def update_location(request: Request, who: Signed, location_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    found = object_id(location_id, service.LOCATION)
    raw = posted(fields(), form)
    body = body_of(fields(), raw, creating=False)

    async def store(write: Writing) -> tuple[str, int, str]:
        location = await own(write.session, who, found)
        await service.update_from(write, location, parse_update(body))
        return "location.updated", location.id, audit_name(location)

    async def again(db: AsyncSession) -> FormPage:
        return _form(raw, await own(db, who, found), raw=True)

    return await save(request, who, LOCATION_SAVED, store=store, again=again)
