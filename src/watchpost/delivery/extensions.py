"""Receivers that other packages add to the delivery system (status page subscribers).

A package whose events go to receivers of its own registers one `Receiver` for a channel
name (installed where the app and the worker are built, as status_pages/references.py is):
an event naming that channel in its `channels` is dispatched to the receiver's targets (rows
of `deliveries` with that `channel`), claimed and retried as every other delivery, and sent
by the receiver's `send`. `due` lets the receiver record events that time makes (a
maintenance that starts), in the dispatching transaction of every delivery pass; `waiting` is
the EXISTS clause that tells an idle pass whether `due` has work.

The delivery package never imports the packages that register here: they import it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncSession

if TYPE_CHECKING:
    from watchpost.context import AppContext
    from watchpost.delivery.claims import Job
    from watchpost.delivery.sending import Outcome

log = logging.getLogger("watchpost.delivery")

Target = dict[str, Any]
Targets = Callable[[AsyncSession, Sequence[Any], datetime], Awaitable[dict[int, list[Target]]]]
"""(session, event rows, now) → event id → the targets of that event."""
Send = Callable[["AppContext", "Job", datetime], Awaitable["Outcome"]]
Due = Callable[[AsyncSession, datetime, int], Awaitable[int]]
"""(session, now, limit) → events recorded."""


@dataclass(frozen=True)
class Receiver:
    channel: str
    targets: Targets
    send: Send
    describe: Callable[[Job], str]
    """Who a delivery is for, in a log line (never a secret or an e-mail address)."""
    due: Due | None = None
    waiting: Any = None
    """An EXISTS clause over the receiver's tables with the bind parameter `due_now`."""


_RECEIVERS: dict[str, Receiver] = {}


def register(receiver: Receiver) -> None:
    """Add a receiver (the same one again is a no-op; another for its channel an error)."""
    if _RECEIVERS.setdefault(receiver.channel, receiver) is not receiver:
        raise ValueError(f"{receiver.channel}: a different receiver is registered already")


def receiver(channel: str) -> Receiver | None:
    return _RECEIVERS.get(channel)


def receivers() -> list[Receiver]:
    return list(_RECEIVERS.values())


async def targets_of(
    session: AsyncSession, events: Sequence[Any], now: datetime
) -> dict[int, list[Target]]:
    """Event id → the registered receivers' targets of the events naming their channel."""
    found: dict[int, list[Target]] = {}
    channels = {channel for event in events for channel in event.channels}
    for channel in sorted(channels):
        if channel in ("email", "sms", "call"):
            continue
        extension = _RECEIVERS.get(channel)
        named = [event for event in events if channel in event.channels]
        if extension is None:
            log.error(
                "events %s name the receiver %r, which is not installed: not told",
                [event.id for event in named],
                channel,
            )
            continue
        for event_id, made in (await extension.targets(session, named, now)).items():
            found.setdefault(event_id, []).extend(made)
    return found


async def due(session: AsyncSession, now: datetime, limit: int) -> int:
    """Let every receiver record the events time has made."""
    made = 0
    for extension in _RECEIVERS.values():
        if extension.due is not None:
            made += await extension.due(session, now, limit)
    return made
