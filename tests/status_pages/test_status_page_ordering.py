"""Positions stay contiguous and unique per section under any sequence of operations."""

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


@hsettings(max_examples=200, deadline=None)
@given(st.lists(op, max_size=25))
def test_arrange_keeps_positions_contiguous_and_fixed_items_in_place(
    ops: list[tuple[str, int | None, object]],
) -> None:
    items: list[Item] = []
    next_id = 0
    for kind, a, b in ops:
        before = {item.id: item.position for item in items}
        fixed_before = {item.id for item in items if item.fixed_position}
        free_order = [i.id for i in sorted(items, key=lambda i: i.position) if not i.fixed_position]
        moved: int | None = None
        try:
            if kind == "insert":
                next_id += 1
                new = Item(next_id, 0, bool(b))
                arrange(items, new, a)
                items.append(new)
                moved = new.id
            elif kind == "move" and items:
                target = items[(a or 0) % len(items)]
                moved = target.id
                arrange([i for i in items if i is not target], target, int(str(b)))
            elif kind == "delete" and items:
                items.pop((a or 0) % len(items))
                arrange(items)
        except PositionHeld:
            for item in items:  # a refused move changes nothing
                assert item.position == before[item.id]
            continue
        assert sorted(i.position for i in items) == list(range(len(items)))
        grown = kind != "delete"
        for item in items:
            if item.id in fixed_before and item.id != moved and grown:
                assert item.position == before[item.id]
        still_free = [i.id for i in sorted(items, key=lambda i: i.position) if not i.fixed_position]
        assert [i for i in still_free if i != moved] == [
            i for i in free_order if i != moved and i in {x.id for x in items}
        ]


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
def test_service_keeps_positions_contiguous_per_section(
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
                db,
                team_id=team.id,
                team_name="acme",
                data=PageCreate.model_validate({"subdomain": f"page-{next(_pages)}"}, strict=True),
                box=ctx.box,
                now=now,
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
                        fields = ResourceFields(
                            status_page_section_id=section_ids[int(str(b))], position=c
                        )
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
                assert exc.problems[0][0] == "position"  # only a fixed-position clash refuses
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
                    assert sorted(found) == list(range(len(found))), (section_id, found)
