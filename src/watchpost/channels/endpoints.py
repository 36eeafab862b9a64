"""Routes of /api/v2/notification-channels (the test send is in delivery/endpoints.py)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from watchpost.channels import schemas, service
from watchpost.channels.models import NotificationChannel
from watchpost.http.body import JsonObject
from watchpost.http.crud import Finder, Routes
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import Resource, listing, resource, single
from watchpost.http.pagination import Paging
from watchpost.problems import accepted, checked, parse

router = APIRouter(prefix="/api/v2/notification-channels", tags=["notification channels"])
channel_routes = Routes(router, schemas.ChannelAttributes)
_find = Finder(service.get_channel, service.CHANNEL, "channel_id")

ABOUT = (
    "A chat or push service reached through Apprise (Slack, Discord, Microsoft Teams, "
    "Telegram, ntfy, Pushover, PagerDuty, Opsgenie, Mattermost, Matrix, and about 150 more), "
    "given as an Apprise URL. The URL carries the service's credentials: it is stored "
    "encrypted and never returned; `service` shows its scheme. Every channel of the team is "
    "told when an incident starts and when it is resolved."
)


def _channel(channel: NotificationChannel, team_name: str) -> Resource:
    return resource(service.CHANNEL, channel.id, service.channel_attributes(channel, team_name))


@channel_routes.create(
    "", summary="Create a notification channel", description=ABOUT, body=schemas.ChannelCreate
)
async def create_channel(body: JsonObject, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    data = parse(schemas.ChannelCreate, body)
    async with db.begin():
        channel = await service.create_channel(
            db, team_id=caller.team_id, data=data, box=ctx.box, now=ctx.clock.now()
        )
    return single(_channel(channel, caller.team_name), status=201)


@channel_routes.list("", summary="List notification channels")
async def list_channels(caller: Caller, db: ReadDb, paging: Paging) -> Response:
    page = await service.list_channels(db, team_id=caller.team_id, paging=paging)
    return listing((_channel(row, caller.team_name) for row in page.data), page.links)


@channel_routes.get("/{channel_id}", summary="Get a notification channel")
async def get_channel(channel_id: str, caller: Caller, db: ReadDb) -> Response:
    return single(_channel(await _find(db, caller, channel_id), caller.team_name))


@channel_routes.update(
    "/{channel_id}",
    summary="Update a notification channel",
    body=schemas.ChannelUpdate,
    not_null=schemas.CHANNEL_NOT_NULL,
)
async def update_channel(
    channel_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    async with db.begin():
        channel = await _find(db, caller, channel_id)
        data = accepted(*checked(schemas.ChannelUpdate, body, not_null=schemas.CHANNEL_NOT_NULL))
        await service.update_channel(
            db, channel=channel, data=data, box=ctx.box, now=ctx.clock.now()
        )
    return single(_channel(channel, caller.team_name))


@channel_routes.delete("/{channel_id}", summary="Delete a notification channel")
async def delete_channel(channel_id: str, caller: Caller, db: WriteDb) -> Response:
    return await _find.delete(
        db, caller, channel_id, lambda channel: service.delete_channel(db, channel=channel)
    )


routers = (router,)
