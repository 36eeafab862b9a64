"""What notification channels do: create, read, change, delete. No HTTP here.

The functions follow the plain collection's convention (http/collection.py).
"""

from __future__ import annotations

from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels.models import NotificationChannel
from watchpost.channels.schemas import ChannelCreate, ChannelUpdate
from watchpost.context import AppContext
from watchpost.listing import Resource, resource
from watchpost.plain_objects import TeamObjects, added, stamps
from watchpost.teams.service import Principal

TYPE: Final = "notification_channel"
_OBJECTS: Final = TeamObjects(NotificationChannel, TYPE)
page, get = _OBJECTS.page, _OBJECTS.get


def service_of(url: str) -> str:
    return url.split("://", 1)[0].lower()


def render(channel: NotificationChannel, team_name: str) -> Resource:
    attributes = {"name": channel.name, "service": channel.service, **stamps(channel, team_name)}
    return resource(TYPE, channel.id, attributes)


async def make(
    db: AsyncSession, caller: Principal, ctx: AppContext, data: ChannelCreate
) -> NotificationChannel:
    kind = service_of(data.url)
    channel = NotificationChannel(
        team_id=caller.team_id,
        name=data.name if data.name is not None else kind,
        service=kind,
        url_encrypted=ctx.box.encrypt(data.url),
    )
    return await added(db, channel, ctx.clock.now())


async def change(
    db: AsyncSession, _: Principal, row: NotificationChannel, ctx: AppContext, data: ChannelUpdate
) -> NotificationChannel:
    """The sent fields change; a new URL is encrypted, and names the service anew."""
    if data.name is not None:
        row.name = data.name
    if data.url is not None:
        row.url_encrypted = ctx.box.encrypt(data.url)
        row.service = service_of(data.url)
    row.updated_at = ctx.clock.now()
    await db.flush()
    return row


async def remove(db: AsyncSession, channel: NotificationChannel) -> None:
    await db.delete(channel)
    await db.flush()
