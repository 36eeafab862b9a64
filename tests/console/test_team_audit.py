"""/team/audit (admins): the team's audit log, newest first, paged by the URL; and
/team/settings (owners): requiring two-factor sign-in, which sends every member without it
to their account page."""

from __future__ import annotations

import re
from datetime import timedelta

import pyotp
from fastapi import FastAPI

from tests.console.team_support import actions, person
from tests.factories.console import add_person
from watchpost.audit.service import Actor, record
from watchpost.clock import FrozenClock
from watchpost.teams.models import Team
from watchpost.teams.service import get_or_create_team


async def _entries(app: FastAPI, team: str, count: int, clock: FrozenClock) -> None:
    async with app.state.ctx.db.write_sessions() as db, db.begin():
        found = await get_or_create_team(db, name=team, now=clock.now())
        for n in range(count):
            await record(
                db,
                team_id=found.id,
                actor=Actor("token", "wp_abcdefghi…", 7),
                action="monitor.updated",
                now=clock.now() + timedelta(minutes=n),
                subject_type="monitor",
                subject_id=n,
                subject=f"{team}-monitor-{n}",
            )


async def test_days_that_cannot_be_read_or_held_show_no_range(
    app: FastAPI, clock: FrozenClock
) -> None:
    await _entries(app, "acme", 3, clock)
    odd = [
        ("until", "9999-12-31"),  # its end is past the year 9999
        *[
            (name, value)
            for name in ("since", "until")
            for value in ("2026-02-30", "\u0662\u0660\u0662\u0666-01-01", "x" * 5000)
        ],
    ]
    async with person(app, "ann@example.com", "admin") as (client, _):
        for name, value in odd:
            page = await client.get("/team/audit", params={name: value})
            assert page.status_code == 200, (name, value[:40])
            assert "acme-monitor-2" in page.text, (name, value[:40])
        far = await client.get("/team/audit", params={"since": "0001-01-01", "until": "2026-01-31"})
        assert far.status_code == 200 and "acme-monitor-2" in far.text
        assert 'value="0001-01-01"' in far.text


async def test_the_audit_log_is_newest_first_paged_and_the_teams_own(
    app: FastAPI, clock: FrozenClock
) -> None:
    await _entries(app, "acme", 60, clock)
    await _entries(app, "globex", 5, clock)
    clock.advance(timedelta(hours=2))
    async with person(app, "ann@example.com", "admin") as (client, _):
        first = await client.get("/team/audit?per_page=25")
        last = await client.get("/team/audit?per_page=25&page=3")
        beyond = await client.get("/team/audit?page=99")
        odd = await client.get("/team/audit?page=abc&per_page=-4")
    assert first.status_code == last.status_code == beyond.status_code == odd.status_code == 200
    # The newest entry is Ann signing in, then the monitors' from the last one back.
    assert first.text.index("session.created") < first.text.index("acme-monitor-59")
    subjects = re.findall(r"acme-monitor-(\d+)", first.text)
    assert subjects == [str(n) for n in range(59, 35, -1)]
    assert "globex" not in first.text + last.text
    assert 'href="/team/audit?page=2&amp;per_page=25" rel="next"' in first.text
    assert 'rel="prev"' not in first.text
    # 61 entries: page 3 holds the 11 oldest.
    assert re.findall(r"acme-monitor-(\d+)", last.text) == [str(n) for n in range(10, -1, -1)]
    assert 'rel="next"' not in last.text and 'rel="prev"' in last.text
    assert '<option value="25" selected>' in first.text
    moment = clock.now() - timedelta(hours=2) + timedelta(minutes=59)
    assert f'title="{moment:%Y-%m-%d %H:%M:%S} UTC"' in first.text  # the exact time
    assert 'wp_abcdefghi… <span class="muted">(API token)</span>' in first.text
    assert "There is nothing on this page." in beyond.text
    assert odd.text.count("<tr>") == 1 + 50  # bad values: page 1 of the default size


async def test_only_owners_reach_the_settings(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (client, csrf):
        assert "/team/settings" not in (await client.get("/team")).text
        assert (await client.get("/team/settings")).status_code == 403
        refused = await client.post(
            "/team/settings", data={"csrf": csrf, "require_two_factor": "on"}
        )
        assert refused.status_code == 403
    async with app.state.ctx.db.read_sessions() as db:
        team = await db.get(Team, 1)
        assert team is not None and team.require_two_factor is False
    assert await actions(app) == []


async def test_required_two_factor_sends_members_without_it_to_their_account(
    app: FastAPI, clock: FrozenClock
) -> None:
    async with (
        person(app, "olga@example.com", "owner") as (owner, owner_csrf),
        person(app, "bo@example.com", "viewer") as (member, member_csrf),
    ):
        assert (await owner.get("/team/settings")).status_code == 200
        saved = await owner.post(
            "/team/settings", data={"csrf": owner_csrf, "require_two_factor": "on"}
        )
        assert saved.status_code == 303
        for client in (owner, member):  # the owner too: nobody has it on
            sent = await client.get("/")
            assert sent.status_code == 303
            assert sent.headers["location"] == "/account?two-factor=required#two-factor"
            assert (await client.get("/team/audit")).status_code == 303
        account = await member.get("/account?two-factor=required")
        assert account.status_code == 200
        assert "acme requires two-factor sign-in: turn it on below" in account.text

        started = await member.post("/account/two-factor/start", data={"csrf": member_csrf})
        found = re.search(r'<code id="totp-secret">([A-Z2-7]+)</code>', started.text)
        assert found is not None
        code = pyotp.TOTP(found.group(1)).at(clock.now())
        enabled = await member.post(
            "/account/two-factor/enable", data={"csrf": member_csrf, "code": code}
        )
        assert enabled.status_code == 200
        assert (await member.get("/")).status_code == 200  # on now: the team's pages again
        assert (await owner.get("/")).status_code == 303  # still off
        assert (await owner.post("/logout", data={"csrf": owner_csrf})).status_code == 303
    assert await actions(app) == ["team.two_factor_required", "two_factor.enabled"]


async def test_turning_the_requirement_off_lets_everyone_in_again(app: FastAPI) -> None:
    async with person(app, "olga@example.com", "owner") as (owner, csrf):
        await owner.post("/team/settings", data={"csrf": csrf, "require_two_factor": "on"})
        assert (await owner.get("/team/settings")).status_code == 303
        # /team/settings is a team page too: the requirement is lifted in the database here,
        # as another owner with two-factor sign-in would from the page.
        async with app.state.ctx.db.write_sessions() as db, db.begin():
            team = await db.get(Team, 1)
            assert team is not None
            team.require_two_factor = False
        page = await owner.get("/team/settings")
        assert page.status_code == 200
        assert 'id="require_two_factor" name="require_two_factor" >' in page.text
        off = await owner.post("/team/settings", data={"csrf": csrf})
        assert off.status_code == 303
    assert await actions(app) == ["team.two_factor_required"]


async def test_a_person_of_two_teams_can_still_switch_to_the_one_without_the_rule(
    app: FastAPI,
) -> None:
    await add_person(app, email="bo@example.com", role="viewer", team="globex")
    async with person(app, "bo@example.com", "owner", team="acme") as (client, csrf):
        await client.post("/team/settings", data={"csrf": csrf, "require_two_factor": "on"})
        assert (await client.get("/")).status_code == 303  # acme: two-factor first
        async with app.state.ctx.db.read_sessions() as db:
            globex = await get_or_create_team(db, name="globex", now=app.state.ctx.clock.now())
        switched = await client.post(
            "/team/switch", data={"csrf": csrf, "team_id": str(globex.id), "next": "/"}
        )
        assert switched.status_code == 303
        overview = await client.get("/")
        assert overview.status_code == 200 and "Overview of globex" in overview.text
