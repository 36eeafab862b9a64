"""The tallies a public page keeps between requests (records.summaries(keep_tallies=True)).

A status page of 50 resources and 90 days would read and add up some 4,500 rollups a
request; checks arrive every minute, so the page cannot be kept whole, but a subject's
rollups that ended before its latest observation's hour can no longer change (see
_prefix_key). For each subject shown (per marking), the tally of those cells (availability's
Prefix: the per-day numbers after them) is kept in this process, per database, the least
recently used dropped first; a request reads a few rows per subject (its latest observation,
the rollups of the current and previous hour, today's daily rollup) and its incidents, and
adds only the cells after the prefix: the same numbers as the full computation.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Final
from weakref import WeakKeyDictionary

from sqlalchemy import Engine, and_, bindparam, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.history.models import CheckRollup
from watchpost.history.periods import SIZES, Granularity, chunks
from watchpost.history.reading import LASTS_OF, Bucket, History, histories, history_of
from watchpost.status_pages.availability import Cell, Incident, Marking, Prefix, prefix_of
from watchpost.status_pages.windows import Window


def cell_of(bucket: Bucket) -> Cell:
    return Cell(bucket.start, bucket.end, bucket.observed_s, bucket.maintenance_s)


PREFIXES_KEPT: Final = 1000
"""How many tallies are kept per database, the least recently used dropped first (about
40 KB each for a 90-day window). A subject's new tally (per page window and marking)
replaces its older one."""

Need = tuple[str, int, Marking]
"""(subject_type, subject_id, the marking of a resource showing it)."""


@dataclass
class _Kept:
    tallies: OrderedDict[Hashable, Prefix] = field(default_factory=OrderedDict)
    latest: dict[Hashable, Hashable] = field(default_factory=dict)
    """What a tally is of (subject, marking, page window) → its key."""

    def get(self, key: Hashable) -> Prefix | None:
        found = self.tallies.get(key)
        if found is not None:
            self.tallies.move_to_end(key)
        return found

    def put(self, key: Hashable, of: Hashable, prefix: Prefix) -> None:
        older = self.latest.get(of)
        if older is not None and older != key:
            self.tallies.pop(older, None)
        self.latest[of] = key
        self.tallies[key] = prefix
        if len(self.tallies) > PREFIXES_KEPT:
            self.tallies.popitem(last=False)
        if len(self.latest) > 2 * PREFIXES_KEPT:
            self.latest = {of: key for of, key in self.latest.items() if key in self.tallies}

    def clear(self) -> None:
        self.tallies.clear()
        self.latest.clear()


_prefixes: WeakKeyDictionary[Engine, _Kept] = WeakKeyDictionary()
"""Per database (engine): ids are only unique within one."""


def _incidents_key(incidents: Sequence[Incident], rules: Marking) -> Hashable:
    """What of the incidents a tally depends on: their times, and their metadata when a
    rule reads it."""
    if rules.down_rule is None and rules.degraded_rule is None:
        return tuple((i.start, i.end) for i in incidents)
    return tuple((i.start, i.end, tuple(sorted(i.metadata.items()))) for i in incidents)


@dataclass(frozen=True)
class Recent:
    """What a page reads of a subject at each request when its older cells are kept: the
    rollups that end after `boundary` (today's, for a day read as a whole), then the
    standing span."""

    history: History
    boundary: datetime | None
    """Where the kept cells end: the current hour's start, or the previous hour's while the
    latest observation is from then (None: nothing kept; see _boundary)."""
    partial: bool | None
    """Daily rollups: whether today is read by the hour (None: no rollup of today yet)."""


_RECENT: Final = select(
    CheckRollup.subject_id,
    CheckRollup.granularity,
    CheckRollup.period_start,
    CheckRollup.up_s,
    CheckRollup.down_s,
    CheckRollup.maintenance_s,
).where(
    CheckRollup.subject_type == bindparam("subject_type"),
    CheckRollup.subject_id.in_(bindparam("ids", expanding=True)),
    or_(
        and_(CheckRollup.granularity == "hour", CheckRollup.period_start >= bindparam("hour")),
        and_(CheckRollup.granularity == "day", CheckRollup.period_start >= bindparam("today")),
    ),
    CheckRollup.period_start < bindparam("now"),
)
_HOUR: Final = SIZES["hour"]


def _boundary(
    latest: Any, window: Window, granularity: Granularity, hour: datetime
) -> datetime | None:
    """Where a subject's kept cells end (see _prefix_key): the current hour's start; the
    previous hour's while its latest observation is from then (a check an hour, or the
    first minute of an hour) unless that is yesterday in daily rollups; the current hour's
    too when the latest observation, older, no longer stands (nothing is recorded). Else
    None: every cell is read."""
    if latest.at >= hour:
        return hour
    if latest.at >= hour - _HOUR and (granularity == "hour" or hour > window.starts[-1]):
        return hour - _HOUR
    if latest.at + timedelta(seconds=latest.valid_for_s) < window.now:
        return hour
    return None


async def recent_cells(
    session: AsyncSession,
    subject_type: str,
    ids: Sequence[int],
    *,
    window: Window,
    granularity: Granularity,
    hour: datetime,
) -> dict[int, Recent]:
    """Each subject's cells that end after its boundary, as `histories` would give them (a
    day partly observed read by the hour), and its latest observation: a few rows per
    subject, whatever the time of day."""
    now = window.now
    lasts: dict[int, Any] = {}
    hours: dict[int, list[Bucket]] = defaultdict(list)
    days: dict[int, Bucket] = {}
    connection = await session.connection()
    for chunk in chunks(ids):
        params: dict[str, Any] = {"subject_type": subject_type, "ids": chunk}
        for row in await connection.execute(LASTS_OF, params):
            lasts[row.subject_id] = row
        observed = [subject_id for subject_id in chunk if subject_id in lasts]
        if not observed:
            continue
        today = window.starts[-1] if granularity == "day" else now
        bounds = {"ids": observed, "hour": hour - _HOUR, "today": today, "now": now}
        for subject_id, size, start, up_s, down_s, maintenance_s in await connection.execute(
            _RECENT, params | bounds
        ):
            bucket = Bucket(start, min(start + SIZES[size], now), up_s, down_s, maintenance_s)
            if size == "day":
                days[subject_id] = bucket
            else:
                hours[subject_id].append(bucket)
    found: dict[int, Recent] = {}
    for subject_id in ids:
        latest = lasts.get(subject_id)
        if latest is None:
            found[subject_id] = Recent(history_of([], None, now), None, None)
            continue
        boundary = _boundary(latest, window, granularity, hour)
        after = boundary or hour
        cells = sorted(
            (b for b in hours.get(subject_id, []) if b.start >= after), key=lambda b: b.start
        )
        partial: bool | None = None
        if granularity == "day":
            day = days.get(subject_id)
            partial = None if day is None else day.partly_observed
            cells = [] if day is None else cells if partial else [day]
        found[subject_id] = Recent(history_of(cells, latest, now), boundary, partial)
    return found


def _prefix_key(
    need: Need,
    recent: Recent,
    incidents: Sequence[Incident],
    *,
    window: Window,
    granularity: Granularity,
    zone: str,
) -> Hashable | None:
    """The key under which a subject's tally of its cells that end by its boundary is kept;
    None when nothing is kept.

    Those cells change only through (a) incidents (their times, or metadata read by the
    marking: part of the key), (b) their rollups. `history.service.record` adds time to
    rollups only from the subject's latest observation onwards (a late result adds checks,
    not time), so no rollup that ends by the start of the latest observation's hour can
    change; nor any rollup at all while the latest observation, no longer standing, stays
    the latest (its time is then in the key).
    """
    subject_type, subject_id, rules = need
    history = recent.history
    if recent.boundary is None or history.last_at is None:
        return None
    stale = None if history.last_at >= recent.boundary else history.last_at
    return (
        subject_type,
        subject_id,
        rules,
        zone,
        granularity,
        window.days[0],
        len(window.days),
        window.starts[-1],
        recent.boundary,
        recent.partial,
        stale,
        _incidents_key(incidents, rules),
    )


def _owner(key: Hashable) -> Hashable:
    """What a key's tally is of: its subject, marking and page window (and created_at)."""
    assert isinstance(key, tuple)
    inner, born = key
    return (inner[:7], born)


async def prefixes_of(
    session: AsyncSession,
    needs: set[Need],
    incidents: dict[tuple[str, int], Sequence[Incident]],
    recents: dict[tuple[str, int], Recent],
    *,
    born: dict[tuple[str, int], datetime | None],
    window: Window,
    granularity: Granularity,
    zone: str,
    hour: datetime,
) -> tuple[dict[Need, Prefix], dict[tuple[str, int], History]]:
    """Each need's prefix: kept ones as they are; the others from the rollups of the whole
    window (one read per subject type), kept. A subject read whole gets, second, the history
    of its cells after the prefix, from that same read."""
    found: dict[Need, Prefix] = {}
    after: dict[tuple[str, int], History] = {}
    keys: dict[Need, Hashable | None] = {}
    missing: dict[str, set[int]] = defaultdict(set)
    engine = (await session.connection()).sync_engine
    kept_here = _prefixes.get(engine)
    if kept_here is None:
        kept_here = _prefixes[engine] = _Kept()
    for need in needs:
        key = keys[need] = _prefix_key(
            need,
            recents[need[:2]],
            incidents[need[:2]],
            window=window,
            granularity=granularity,
            zone=zone,
        )
        if key is not None:  # an id may come again after a deletion: with another created_at
            key = keys[need] = (key, born.get(need[:2]))
        kept = kept_here.get(key) if key is not None else None
        if kept is not None:
            found[need] = kept
        else:
            missing[need[0]].add(need[1])
    for subject_type, ids in missing.items():
        full = await histories(
            session,
            subject_type=subject_type,
            subject_ids=sorted(ids),
            since=window.start,
            now=window.now,
            granularity=granularity,
        )
        for subject_id in ids:
            history = full[subject_id]
            rollups = history.buckets[:-1] if history.standing is not None else history.buckets
            recent = recents[(subject_type, subject_id)]
            boundary = recent.boundary or hour
            # Recorded between the two reads (their latest observations differ): this read's
            # numbers are used, but not kept under a key made from the other's.
            same = history.last_at == recent.history.last_at
            head = [b for b in rollups if b.end <= boundary]
            rest = [*rollups[len(head) :], *([history.standing] if history.standing else [])]
            after[(subject_type, subject_id)] = replace(history, buckets=rest)
            for need in needs:
                if need[:2] != (subject_type, subject_id) or need in found:
                    continue
                cells = [cell_of(b) for b in head]
                shown = incidents[need[:2]]
                prefix = found[need] = prefix_of(cells, shown, need[2], window)
                key = keys[need]
                if key is not None and same:
                    kept_here.put(key, _owner(key), prefix)
    return found, after
