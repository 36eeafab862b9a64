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


MONITOR_GROUPS: Final = GroupKind(
    api_type="monitor_group",
    name="monitor group",
    model=MonitorGroup,
    prefix="/api/v2/monitor-groups",
    member_model=Monitor,
    member_key=Monitor.monitor_group_id,
    member_type="monitor",
    members="monitors",
    shown_as="MonitorGroup",
    pause_member=monitors.set_paused,
    announce_pause=monitors.announce_pause,
    sort_index=Annotated[int, Field(ge=-1_000_000, le=1_000_000)],
)
HEARTBEAT_GROUPS: Final = GroupKind(
    api_type="heartbeat_group",
    name="heartbeat group",
    model=HeartbeatGroup,
    prefix="/api/v2/heartbeat-groups",
    member_model=Heartbeat,
    member_key=Heartbeat.heartbeat_group_id,
    member_type="heartbeat",
    members="heartbeats",
    shown_as="HeartbeatGroup",
    pause_member=heartbeats.set_paused,
)
SOURCE_GROUPS: Final = GroupKind(
    api_type="source_group",
    name="source group",
    model=SourceGroup,
    prefix="/api/v1/source-groups",
    member_model=Source,
    member_key=Source.source_group_id,
    member_type="source",
    members="sources",
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
