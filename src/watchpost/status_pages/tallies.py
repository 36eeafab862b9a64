"""Adding up cells day by day (availability.py's arithmetic): a window's days' numbers, and
the totals of its earlier days (those counted in the availability without an entry)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from watchpost.status_pages.windows import Interval, Window, covered_seconds

if TYPE_CHECKING:
    from watchpost.status_pages.availability import Cell

Tally = tuple[list[float], list[float], list[float], list[float]]
"""Per day: seconds observed, in maintenance, down, degraded."""


def tally(
    cells: Iterable[Cell],
    window: Window,
    first: int,
    stop: int,
    down: list[Interval],
    degraded: list[Interval],
    *,
    onto: Tally | None = None,
) -> Tally:
    """The numbers of days first..stop-1, cell by cell (in the cells' order), added to
    `onto` (a tally of those days, changed in place) when given, else to zeros."""
    count = stop - first
    tally = ([0.0] * count, [0.0] * count, [0.0] * count, [0.0] * count) if onto is None else onto
    seen, in_maintenance, in_downtime, in_degraded = tally
    for cell in cells:
        length = (cell.end - cell.start).total_seconds()
        if length <= 0 or cell.observed <= 0:
            continue
        usable = max(cell.observed - cell.maintenance, 0.0)
        for index, (start, end) in pieces(cell, window, first, stop):
            share = (end - start).total_seconds() / length
            at = index - first
            seen[at] += cell.observed * share
            in_maintenance[at] += cell.maintenance * share
            room = usable * share
            down_here = min(covered_seconds(down, start, end), room) if down else 0.0
            in_downtime[at] += down_here
            if degraded:
                in_degraded[at] += min(covered_seconds(degraded, start, end), room - down_here)
    return tally


@dataclass(frozen=True)
class Earlier:
    """What was recorded in the window before its shown days, as totals.

    observed / maintenance: seconds (SQL sums over the rollups, by the history service).
    cells: the cells there that incidents overlap; only their downtime is taken from them,
    since downtime is capped per cell and per day.
    """

    observed: float = 0.0
    maintenance: float = 0.0
    cells: Sequence[Cell] = ()


def _share(cell: Cell, start: datetime, end: datetime) -> float:
    """The part of the cell's time that lies within [start, end)."""
    length = (cell.end - cell.start).total_seconds()
    inside = (min(cell.end, end) - max(cell.start, start)).total_seconds()
    return inside / length if length > 0 and inside > 0 else 0.0


def earlier_from_cells(cells: Iterable[Cell], window: Window) -> Earlier:
    """The earlier days' totals from cells in memory (items without rollups)."""
    if window.first_shown == 0:
        return Earlier()
    start, end = window.start, window.shown_start
    observed = maintenance = 0.0
    kept: list[Cell] = []
    for cell in cells:
        share = _share(cell, start, end)
        if share > 0 and cell.observed > 0:
            observed += cell.observed * share
            maintenance += cell.maintenance * share
            kept.append(cell)
    return Earlier(observed, maintenance, kept)


def pieces(cell: Cell, window: Window, first: int, stop: int) -> Iterator[tuple[int, Interval]]:
    """(day index, the cell's part in that day) for the days first..stop-1 it touches."""
    starts, ends = window.starts, window.ends
    for index in range(max(bisect_right(starts, cell.start) - 1, first), stop):
        if starts[index] >= cell.end:
            break
        start, end = max(cell.start, starts[index]), min(cell.end, ends[index])
        if start < end:
            yield index, (start, end)


def earlier_down(cells: Iterable[Cell], window: Window, down: list[Interval]) -> float:
    """Downtime in the earlier days: per cell and day, capped as in the shown days."""
    total = 0.0
    if not down or window.first_shown == 0:
        return total
    for cell in cells:
        length = (cell.end - cell.start).total_seconds()
        if length <= 0 or cell.observed <= 0:
            continue
        if (
            covered_seconds(down, max(cell.start, window.start), min(cell.end, window.shown_start))
            <= 0
        ):
            continue
        usable = max(cell.observed - cell.maintenance, 0.0)
        for _, (start, end) in pieces(cell, window, 0, window.first_shown):
            room = usable * (end - start).total_seconds() / length
            total += min(covered_seconds(down, start, end), room)
    return total
