"""The kinds of group, as one table: everything that differs between monitor, heartbeat and
source groups is a field of `GroupKind`; the service, schemas and routes are the same for all.

The groups' tables stay with their members' domains (a member's domain checks that the group
it names exists); this package sits above them and imports them, never the other way round.
Status pages read the table too (which resource types are groups, and of what).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Final, Literal

from pydantic import Field
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from watchpost.collectors.models import Collector
from watchpost.heartbeats import service as heartbeats
from watchpost.heartbeats.models import Heartbeat, HeartbeatGroup
from watchpost.monitors import service as monitors
from watchpost.monitors.models import Monitor, MonitorGroup
from watchpost.sources.models import Source, SourceGroup
from watchpost.validation import Int32

Group = MonitorGroup | HeartbeatGroup | SourceGroup
PauseMember = Callable[[Any, bool, datetime], object]
AnnouncePause = Callable[[AsyncSession, Any, datetime], Awaitable[None]]
"""Pauses (True) or resumes (False) one member as of now; the member's domain decides how."""


@dataclass(frozen=True)
class GroupKind:
    api_type: str
    """The API's resource type; also names the group in 404s."""
    name: str
    """In words, for summaries and messages."""
    model: type[Group]
    prefix: str
    """The URL of the collection."""
    member_model: type[Any]
    member_key: InstrumentedAttribute[int | None]
    """The members' column naming their group."""
    member_type: str
    """The members' API resource type, also their check history's subject_type."""
    members: str
    """The path segment listing a group's members."""
    shown_as: str | None = None
    """The status page resource_type showing a group of this kind; None: pages cannot."""
    pause_member: PauseMember | None = None
    """None: the kind has no `paused`; else pausing a group pauses its members with it."""
    announce_pause: AnnouncePause | None = None
    """Tells receivers a member was paused or unpaused with its group (monitor webhooks)."""
    unique_names: bool = False
    """Whether two groups of a team may not share a name."""
    team_attribute: Literal["team_name", "team_id"] = "team_name"
    """Which of the team's name or id the attributes show."""
    sort_index: Any = Int32
    """The type of `sort_index` in requests."""
    also_grouped: tuple[InstrumentedAttribute[int | None], ...] = ()
    """Other tables' columns naming a group of this kind, cleared when it is deleted."""


def _kind(
    member_type: str,
    api: str,
    model: type[Group],
    member_model: type[Any],
    member_key: InstrumentedAttribute[int | None],
    **more: Any,
) -> GroupKind:
    """A kind named after its members' type: the API type `<member>_group`, in words
    "<member> group", its collection at `/api/<api>/<member>-groups` and its members at
    `<member>s`."""
    return GroupKind(
        api_type=f"{member_type}_group",
        name=f"{member_type} group",
        model=model,
        prefix=f"/api/{api}/{member_type}-groups",
        member_model=member_model,
        member_key=member_key,
        member_type=member_type,
        members=f"{member_type}s",
        **more,
    )


MONITOR_GROUPS: Final = _kind(
    "monitor",
    "v2",
    MonitorGroup,
    Monitor,
    Monitor.monitor_group_id,
    shown_as="MonitorGroup",
    pause_member=monitors.set_paused,
    announce_pause=monitors.announce_pause,
    sort_index=Annotated[int, Field(ge=-1_000_000, le=1_000_000)],
)
HEARTBEAT_GROUPS: Final = _kind(
    "heartbeat",
    "v2",
    HeartbeatGroup,
    Heartbeat,
    Heartbeat.heartbeat_group_id,
    shown_as="HeartbeatGroup",
    pause_member=heartbeats.set_paused,
)
SOURCE_GROUPS: Final = _kind(
    "source",
    "v1",
    SourceGroup,
    Source,
    Source.source_group_id,
    unique_names=True,
    team_attribute="team_id",
    also_grouped=(Collector.source_group_id,),
)
GROUP_KINDS: Final = (MONITOR_GROUPS, HEARTBEAT_GROUPS, SOURCE_GROUPS)
SHOWN_GROUPS: Final[dict[str, GroupKind]] = {
    **{kind.shown_as: kind for kind in GROUP_KINDS if kind.shown_as is not None},
    # The hosted API's own name for a monitor group (its errors about a monitor's
    # monitor_group_id say "resource_group"); a status page resource may name it either way.
    "ResourceGroup": MONITOR_GROUPS,
}
"""Status page resource_type → the kind of group it shows."""
