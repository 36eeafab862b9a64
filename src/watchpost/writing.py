"""Writing: who writes, and with what, in one request's transaction.

Every "from a request body" function of the domains (monitors, heartbeats, groups, webhooks,
sources, locations) takes one `Writing` and the body, whoever calls it: the API builds it once
per request (http/crud.py's `Writer`), the console in its form's write transaction
(`Writing.of`). No web framework here: the domains import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import SecretBox

if TYPE_CHECKING:
    from watchpost.context import AppContext


class Team(Protocol):
    """Whoever acts for a team: an API token's Principal, the console's Viewer, a Writing."""

    @property
    def team_id(self) -> int: ...

    @property
    def team_name(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Writing:
    """The write session, the team written for (its id, and its name: what a body's
    `team_name` must be), the app's SecretBox and the time of the change."""

    session: AsyncSession
    team_id: int
    team_name: str
    box: SecretBox
    now: datetime

    @classmethod
    def of(cls, session: AsyncSession, team: Team, ctx: AppContext) -> Writing:
        """`team`'s writing in `session`, now by the app's clock."""
        return cls(session, team.team_id, team.team_name, ctx.box, ctx.clock.now())
