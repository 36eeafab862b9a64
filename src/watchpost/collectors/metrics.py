"""Metric samples of collector targets: written with each batch of results, kept a day."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.collectors.models import TargetMetricSample
from watchpost.listing import Page, PageRequest, team_page

METRIC_RETENTION = timedelta(hours=24)
SAMPLE = "collector_target_metric_sample"


def sample_row(
    *, team_id: int, target_id: int, at: datetime, metrics: Mapping[str, float]
) -> dict[str, Any] | None:
    """The row for one check's numbers; None when it read none (non-finite ones dropped)."""
    values = {name: float(value) for name, value in metrics.items() if math.isfinite(value)}
    if not values:
        return None
    return {"team_id": team_id, "target_id": target_id, "at": at, "values": values}


async def add_samples(session: AsyncSession, rows: Sequence[dict[str, Any]]) -> None:
    """Insert a batch of sample rows in one statement."""
    if rows:
        await session.execute(insert(TargetMetricSample), list(rows))


async def prune_samples(session: AsyncSession, *, now: datetime) -> int:
    """Delete samples older than METRIC_RETENTION; how many."""
    result = await session.execute(
        delete(TargetMetricSample).where(TargetMetricSample.at < now - METRIC_RETENTION),
        execution_options={"synchronize_session": False},
    )
    return int(getattr(result, "rowcount", 0) or 0)


async def list_samples(
    session: AsyncSession, *, team_id: int, target_id: int, paging: PageRequest
) -> Page[TargetMetricSample]:
    """A page of the target's samples, oldest first."""
    return await team_page(
        session, TargetMetricSample, paging, team_id=team_id, target_id=target_id
    )


def sample_attributes(sample: TargetMetricSample) -> dict[str, Any]:
    return {"at": isoformat_ms(sample.at), "values": sample.values}
