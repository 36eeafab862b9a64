"""Positions stay unique per section under any sequence of operations; fixed-position items
keep the numbers they were given (ordering.py)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass

from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from sqlalchemy import select

from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.errors import InvalidRequest
from watchpost.settings import Settings
from watchpost.status_pages import pages, resources, sections
from watchpost.status_pages.models import StatusPageResource
from watchpost.status_pages.ordering import PositionHeld, arrange
from watchpost.status_pages.schemas import PageCreate, ResourceFields, SectionCreate
from watchpost.teams.service import get_or_create_team
from watchpost.writing import Writing


@dataclass
class Item:
    id: int
    position: int
    fixed_position: bool


op = st.one_of(
    st.tuples(st.just("insert"), st.none() | st.integers(0, 8), st.booleans()),
    st.tuples(st.just("move"), st.integers(0, 20), st.integers(0, 8)),
    st.tuples(st.just("delete"), st.integers(0, 20), st.none()),
)


def check_layout(items: list[Item]) -> None:
    """Unique positions; the flowing items hold exactly the first numbers no fixed item does."""
    positions = [item.position for item in items]
    assert len(set(positions)) == len(positions)
    fixed = {item.position for item in items if item.fixed_position}
    flowing = sorted(item.position for item in items if not item.fixed_position)
    free = [n for n in range(len(items) + max(fixed, default=0) + 1) if n not in fixed]
    assert flowing == free[: len(flowing)]


def pushed_run(fixed: dict[int, int], slot: int) -> set[int]:
    """Ids of the fixed items an item placed at slot pushes one further."""
    run = set()
    while slot in fixed:
        run.add(fixed[slot])
        slot += 1
    return run


@hsettings(max_examples=300, deadline=None)
@given(st.lists(op, max_size=25))
def test_arrange_keeps_fixed_items_where_they_were_put(
    ops: list[tuple[str, int | None, object]],
) -> None:
    items: list[Item] = []
    next_id = 0
    for kind, a, b in ops:
        before = {item.id: item.position for item in items}
        fixed_at = {item.position: item.id for item in items if item.fixed_position}
        flow_order = [i.id for i in sorted(items, key=lambda i: i.position) if not i.fixed_position]
        moved: int | None = None
        target: int | None = None
        if kind == "insert":
            next_id += 1
            new = Item(next_id, 0, bool(b))
            moved, target = new.id, a
            arrange(items, new, a)
            items.append(new)
        elif kind == "move" and items:
            mover = items[(a or 0) % len(items)]
            moved, target = mover.id, int(str(b))
            fixed_at = {p: i for p, i in fixed_at.items() if i != moved}
            arrange([i for i in items if i is not mover], mover, target)
        elif kind == "delete" and items:
            items.pop((a or 0) % len(items))
            arrange(items)
        check_layout(items)
        by_id = {item.id: item for item in items}
        if moved is not None and target is not None:
            mover_item = by_id[moved]
            if mover_item.fixed_position:
                assert mover_item.position == target  # read back as sent
            pushed = pushed_run(fixed_at, target) if mover_item.position == target else set()
        else:
            pushed = set()
        for item in items:
            if item.fixed_position and item.id != moved and item.id in before:
                expected = before[item.id] + (1 if item.id in pushed else 0)
                assert item.position == expected
        still_flowing = [
            i.id for i in sorted(items, key=lambda i: i.position) if not i.fixed_position
        ]
        assert [i for i in still_flowing if i != moved] == [
            i for i in flow_order if i != moved and i in by_id
        ]


def test_no_position_past_the_largest() -> None:
    last = Item(1, 2**31 - 1, True)
    for target in (None, 2**31 - 1):
        try:
            arrange([last], Item(2, 0, True), target)
        except PositionHeld as exc:
            assert exc.holder is last
        else:
            raise AssertionError("placed past the largest position")
    assert last.position == 2**31 - 1


@hsettings(max_examples=200, deadline=None)
@given(st.permutations(range(5)), st.permutations(range(5)), st.integers(0, 3))
def test_terraform_reorders_fixed_items_in_one_apply(
    final: list[int], order: list[int], flowing: int
) -> None:
    """Fixed items 0..4 at positions 0..4 (and some flowing ones after them) get new
    distinct positions, one PATCH per changed item in any order: each ends where it was
    sent, the unchanged ones stay, and nothing else moves."""
    items = [Item(i, i, True) for i in range(5)]
    items += [Item(10 + i, 5 + i, False) for i in range(flowing)]
    for index in order:
        mover = items[index]
        if mover.position == final[index] and final[index] == index:
            continue  # unchanged in the configuration: not sent
        if final[index] == index:
            continue
        others = [i for i in items if i is not mover]
        arrange(others, mover, final[index], mover.position)
    assert [items[i].position for i in range(5)] == final
    assert [i.position for i in items[5:]] == [5 + i for i in range(flowing)]


_pages = itertools.count()

db_op = st.one_of(
    st.tuples(st.just("insert"), st.integers(0, 1), st.none() | st.integers(0, 5), st.booleans()),
    st.tuples(
        st.just("move"), st.integers(0, 30), st.integers(0, 1), st.none() | st.integers(0, 5)
    ),
    st.tuples(st.just("delete"), st.integers(0, 30), st.none(), st.none()),
)


@hsettings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(db_op, min_size=1, max_size=12))
def test_service_keeps_positions_unique_per_section(
    settings: Settings, ops: list[tuple[str, int, int | None, object]]
) -> None:
    # Each example runs in its own event loop with its own engine (hypothesis drives a
    # sync test); the database is the test's, so pages get unique subdomains.
    asyncio.run(_run(settings, ops))


async def _run(settings: Settings, ops: list[tuple[str, int, int | None, object]]) -> None:
    ctx = AppContext.build(settings, FrozenClock())
    try:
        await _run_ops(ctx, ops)
    finally:
        await ctx.db.dispose()


async def _run_ops(ctx: AppContext, ops: list[tuple[str, int, int | None, object]]) -> None:
    now = ctx.clock.now()
    async with ctx.db.write_sessions() as db:
        async with db.begin():
            team = await get_or_create_team(db, name="acme", now=now)
            page = await pages.create_page(
                Writing(db, team.id, "acme", ctx.box, now),
                PageCreate.model_validate({"subdomain": f"page-{next(_pages)}"}, strict=True),
            )
            made = [
                await sections.create_section(db, page=page, data=SectionCreate(), now=now)
                for _ in range(2)
            ]
            page_id, section_ids, team_id = page.id, [s.id for s in made], team.id
        for kind, a, b, c in ops:
            try:
                async with db.begin():
                    page = await pages.get_page(db, team_id=team_id, page_id=page_id, lock=True)
                    rows = (
                        await db.scalars(
                            resources.resources_of(team_id=team_id, page_id=page_id).order_by(
                                StatusPageResource.id
                            )
                        )
                    ).all()
                    if kind == "insert":
                        fields = ResourceFields(
                            status_page_section_id=section_ids[a],
                            position=b,
                            fixed_position=bool(c),
                        )
                        await resources.create_resource(
                            db,
                            page=page,
                            team_name="acme",
                            data=fields,
                            sent=set(fields.model_fields_set),
                            now=now,
                        )
                    elif kind == "move" and rows:
                        moving: dict[str, object] = {
                            "status_page_section_id": section_ids[int(str(b))]
                        }
                        if c is not None:
                            moving["position"] = c
                        fields = ResourceFields.model_validate(moving)
                        await resources.update_resource(
                            db,
                            page=page,
                            team_name="acme",
                            resource=rows[a % len(rows)],
                            data=fields,
                            sent=set(fields.model_fields_set),
                            now=now,
                        )
                    elif kind == "delete" and rows:
                        await resources.delete_resource(db, resource=rows[a % len(rows)])
            except InvalidRequest as exc:
                raise AssertionError(f"no position is ever refused: {exc.problems}") from None
            db.expire_all()
            async with db.begin():
                for section_id in section_ids:
                    found = (
                        await db.scalars(
                            select(StatusPageResource.position).where(
                                StatusPageResource.status_page_section_id == section_id
                            )
                        )
                    ).all()
                    assert len(set(found)) == len(found), (section_id, found)
