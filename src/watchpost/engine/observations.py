"""The seam to the check history (watchpost/history, built on the `history` branch).

STAND-IN until that branch is merged: `record` stores nothing. At merge, replace this
module's body with `from watchpost.history import Observation, record` (same fields).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession


@dataclass(frozen=True)
class Observation:
    """One check result as history keeps it (fields as in watchpost.history.Observation)."""

    team_id: int
    subject_type: str
    subject_id: int
    at: datetime
    state: str
    """up, down or maintenance."""
    valid_for_s: int
    latency_ms: float | None
    error: str | None


async def record(session: AsyncSession, observations: Sequence[Observation]) -> None:
    """Stand-in of watchpost.history.record: the batch is dropped."""
    del session, observations
