"""What notification channels do: create, read, change, delete. No HTTP here."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.channels.models import NotificationChannel
from watchpost.channels.schemas import ChannelCreate, ChannelUpdate
from watchpost.clock import isoformat_ms
from watchpost.crypto import SecretBox
from watchpost.db.queries import team_object, team_rows
from watchpost.http.pagination import Page, PageRequest, paginate

CHANNEL: Final = "notification_channel"


def service_of(url: str) -> str:
    return url.split("://", 1)[0].lower()


def channel_attributes(channel: NotificationChannel, team_name: str) -> dict[str, Any]:
    return {
        "name": channel.name,
        "service": channel.service,
        "team_name": team_name,
        "created_at": isoformat_ms(channel.created_at),
        "updated_at": isoformat_ms(channel.updated_at),
    }


async def create_channel(
    session: AsyncSession, *, team_id: int, data: ChannelCreate, box: SecretBox, now: datetime
) -> NotificationChannel:
    service = service_of(data.url)
    channel = NotificationChannel(
        team_id=team_id,
        name=data.name if data.name is not None else service,
        service=service,
        url_encrypted=box.encrypt(data.url),
        created_at=now,
        updated_at=now,
    )
    session.add(channel)
    await session.flush()
    return channel


async def list_channels(
    session: AsyncSession, *, team_id: int, paging: PageRequest
) -> Page[NotificationChannel]:
    stmt = team_rows(NotificationChannel, team_id=team_id)
    return await paginate(session, stmt, paging, order_by=NotificationChannel.id)


async def get_channel(
    session: AsyncSession, *, team_id: int, channel_id: int
) -> NotificationChannel:
    return await team_object(
        session, NotificationChannel, CHANNEL, team_id=team_id, object_id=channel_id
    )


async def update_channel(
    session: AsyncSession,
    *,
    channel: NotificationChannel,
    data: ChannelUpdate,
    box: SecretBox,
    now: datetime,
) -> NotificationChannel:
    if data.name is not None:
        channel.name = data.name
    if data.url is not None:
        channel.url_encrypted = box.encrypt(data.url)
        channel.service = service_of(data.url)
    channel.updated_at = now
    await session.flush()
    return channel


async def delete_channel(session: AsyncSession, *, channel: NotificationChannel) -> None:
    await session.delete(channel)
    await session.flush()
