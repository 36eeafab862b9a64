"""The pages of a monitor, a heartbeat and a collector target, and their buttons, over HTTP:
what each page shows is the API's data (its /sla numbers too), each button changes the
object as the API then shows it, refused roles and forged forms change nothing."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from tests.console.test_detail_data import sla
from tests.factories.api import Api, data
from tests.factories.console import add_person, csrf, sign_in
from tests.factories.engine import engine_of, load, recording_server
from tests.factories.heartbeats import create_heartbeat
from tests.factories.monitors import MONITORS, create_monitor
from tests.factories.objects import create_collector, create_target, target_body, unique_name
from tests.factories.servers import free_port
from watchpost.audit.models import AuditEvent
from watchpost.clock import FrozenClock
from watchpost.collectors import metrics
from watchpost.collectors.models import CollectorTarget
from watchpost.console.detail_data import AVAILABILITY_RANGES
from watchpost.monitors.models import Monitor

HEARTBEATS = "/api/v2/heartbeats"


async def signed(app: FastAPI, client: httpx.AsyncClient, role: str) -> str:
    """Signs the client in as a person of team acme (the `api` fixture's) with role; the
    CSRF token of the session."""
    email = f"{role}@example.com"
    await add_person(app, email=email, role=role)
    assert (await sign_in(client, email)).status_code == 303
    return await csrf(client)


async def target_path(api: Api, collector_name: str | None = None) -> tuple[int, str]:
    collector = await create_collector(api, name=collector_name or unique_name("db"))
    body = target_body("redis", host="127.0.0.1", port=free_port())
    target = await create_target(api, collector["id"], body)
    return int(target["id"]), f"/api/v1/collectors/{collector['id']}/targets/{target['id']}"


async def audit(app: FastAPI) -> list[tuple[str, int | None, str]]:
    """What people did to monitors, heartbeats and targets (not the API's tokens, not
    signing in), in order."""
    async with app.state.ctx.db.read_sessions() as session:
        rows = await session.execute(
            select(AuditEvent.action, AuditEvent.subject_id, AuditEvent.actor)
            .where(
                AuditEvent.actor_kind == "person",
                AuditEvent.subject_type.in_(("monitor", "heartbeat", "collector_target")),
            )
            .order_by(AuditEvent.id)
        )
        return [(a, b, c) for a, b, c in rows]


def text_of(html: str) -> str:
    """The page's words, tags removed and spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


async def test_a_monitor_page_shows_what_the_api_knows(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        created = await create_monitor(
            api,
            url=server.url("/health"),
            pronounceable_name="Shop front",
            check_frequency=60,
            confirmation_period=0,
            recovery_period=0,
        )
        monitor_id = int(created["id"])
        engine = engine_of(app)
        for _ in range(3):
            clock.advance(3600)
            await engine.tick()
        server.status["/health"] = 500
        clock.advance(3600)
        await engine.tick()  # down: an incident opens
    clock.advance(1800)
    await signed(app, client, "viewer")
    page = await client.get(f"/monitors/{monitor_id}")
    assert page.status_code == 200, page.text[:300]
    assert page.headers["cache-control"] == "no-store"
    words = text_of(page.text)
    assert "<h1" in page.text and "Shop front" in words
    assert server.url("/health") in page.text
    assert 'class="state state-down">Down<' in page.text
    assert "since 30 min ago" in words
    assert re.search(
        r'<svg[^>]* role="img"[^>]*aria-label="Response time, last 24 hours"', page.text
    )
    assert f'href="/monitors/{monitor_id}?range=24h#chart" aria-current="true"' in page.text
    for name, span in AVAILABILITY_RANGES.items():
        shown = await sla(api, f"{MONITORS}/{monitor_id}/sla", clock, span)
        assert f"{shown:.2f} %" in page.text, (name, shown)
    assert "without an open incident" in words  # says what it counts (not the chart's checks)
    assert "500" in text_of(page.text.split('id="checks"')[1])  # the failed check's error
    assert re.search(r'href="/incidents/\d+"', page.text)
    # a viewer sees no buttons
    assert ">Pause<" not in page.text and ">Delete<" not in page.text

    week = await client.get(f"/monitors/{monitor_id}?range=7d")
    assert 'aria-label="Response time, last 7 days"' in week.text
    assert f'href="/monitors/{monitor_id}?range=7d#chart" aria-current="true"' in week.text
    odd = await client.get(f"/monitors/{monitor_id}?range=nonsense")
    assert 'aria-label="Response time, last 24 hours"' in odd.text


async def test_the_buttons_a_role_sees(app: FastAPI, api: Api, client: httpx.AsyncClient) -> None:
    monitor_id = int((await create_monitor(api))["id"])
    await signed(app, client, "responder")
    page = (await client.get(f"/monitors/{monitor_id}")).text
    assert ">Pause<" in page and ">Check now<" in page
    assert ">Delete<" not in page and ">Edit<" not in page
    await signed(app, client, "admin")
    page = (await client.get(f"/monitors/{monitor_id}")).text
    assert f'href="/monitors/{monitor_id}/edit"' in page and ">Delete<" in page
    assert 'data-confirm="Delete the monitor' in page


async def test_a_heartbeat_page_with_its_ping_log(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api, name="nightly backup")
    sent = [
        ("GET", made.url, None, "cron/1.0"),
        ("POST", f"{made.url}/3", b"tar: disk full", "curl/8.5"),
        ("POST", f"{made.url}/fail", b"<script>alert(1)</script>", "curl/8.5"),
        ("GET", f"{made.url}/0", None, "wget/1.2"),
    ]
    for method, url, body, agent in sent:
        clock.advance(60)
        answer = await client.request(method, url, content=body, headers={"User-Agent": agent})
        assert answer.status_code == 200
    await signed(app, client, "viewer")
    page = await client.get(f"/heartbeats/{made.id}")
    assert page.status_code == 200
    shown_url = data(await api.get(f"{HEARTBEATS}/{made.id}"))["attributes"]["url"]
    assert f'<code id="ping-url">{shown_url}</code>' in page.text
    assert 'data-copy="ping-url">Copy' in page.text
    assert f"curl -fsS -m 10 --retry 5 -o /dev/null {shown_url}" in page.text
    assert f"{shown_url}/$?" in page.text  # the cron line with the exit code
    assert 'class="state state-up">Up<' in page.text
    log = page.text.split('id="pings"')[1].split("</table>")[0]
    rows = log.split("<tr>")[2:]
    assert len(rows) == 4
    assert ["Success" in rows[0], "Failure" in rows[1], "Failure" in rows[2]] == [True] * 3
    assert "Exit code </span>0" in rows[0] and "Exit code </span>3" in rows[2]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rows[1] and "<script>alert" not in log
    assert "tar: disk full" in rows[2] and "curl/8.5" in rows[2]
    assert "cron/1.0" in rows[3] and "empty" in rows[3]
    path = f"{HEARTBEATS}/{made.id}/availability"
    for span in AVAILABILITY_RANGES.values():
        assert f"{await sla(api, path, clock, span):.2f} %" in page.text


async def test_the_ping_log_page_is_bounded(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    made = await create_heartbeat(api)
    for n in range(105):
        clock.advance(1)
        url = made.url if n % 2 else f"{made.url}/{n % 7}"
        assert (await client.get(url)).status_code == 200
    await signed(app, client, "viewer")
    page = (await client.get(f"/heartbeats/{made.id}")).text
    log = page.split('id="pings"')[1].split("</table>")[0]
    assert log.count("<tr>") == 1 + 100  # the head and the newest 100
    # the newest first: ping 104 had exit code 104 % 7 = 6
    assert "Exit code </span>6" in log.split("<tr>")[2]


async def test_a_target_page_with_its_metrics(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    target_id, path = await target_path(api, "db-host")
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        row = metrics.sample_row(
            team_id=api.team_id,
            target_id=target_id,
            at=clock.now(),
            metrics={"connected_clients": 7.0, "used_memory": 1048576.0},
        )
        assert row is not None
        await metrics.add_samples(session, [row])
    clock.advance(600)
    await engine_of(app).tick()  # nothing listens there: down
    await signed(app, client, "viewer")
    page = await client.get(f"/targets/{target_id}")
    assert page.status_code == 200, page.text[:300]
    attributes = data(await api.get(path))["attributes"]
    words = text_of(page.text)
    assert f"redis at 127.0.0.1:{attributes['port']}" in words
    assert "db-host" in words and 'class="state state-down">Down<' in page.text
    assert "connected_clients" in words and "7" in words and "1,048,576" in words
    assert attributes["last_error"] and attributes["last_error"] in page.text
    assert 'aria-label="Response time, last 24 hours' in page.text
    assert re.search(r'href="/incidents/\d+"', page.text)


async def api_state(api: Api, kind: str, path: str) -> Any:
    """What the API shows of the object: paused (monitors, heartbeats) or not enabled."""
    answer = await api.get(path)
    if answer.status_code == 404:
        return "gone"
    attributes = data(answer)["attributes"]
    return not attributes["enabled"] if kind == "target" else attributes["paused"]


async def three_objects(api: Api) -> dict[str, tuple[int, str]]:
    monitor_id = int((await create_monitor(api))["id"])
    heartbeat = await create_heartbeat(api)
    target_id, target_api = await target_path(api)
    return {
        "monitor": (monitor_id, f"{MONITORS}/{monitor_id}"),
        "heartbeat": (heartbeat.id, f"{HEARTBEATS}/{heartbeat.id}"),
        "target": (target_id, target_api),
    }


PAGES = {"monitor": "/monitors", "heartbeat": "/heartbeats", "target": "/targets"}


@pytest.mark.parametrize("kind", ["monitor", "heartbeat", "target"])
async def test_pause_resume_and_delete_as_the_api_shows_them(
    app: FastAPI, api: Api, client: httpx.AsyncClient, kind: str
) -> None:
    object_id, path = (await three_objects(api))[kind]
    page = f"{PAGES[kind]}/{object_id}"
    token = await signed(app, client, "responder")
    paused = await client.post(f"{page}/pause", data={"csrf": token})
    assert (paused.status_code, paused.headers["location"]) == (303, f"{page}?done=paused")
    assert await api_state(api, kind, path) is True
    shown = await client.get(paused.headers["location"])
    assert "Paused." in shown.text and 'class="state state-paused">Paused<' in shown.text
    assert ">Resume<" in shown.text
    resumed = await client.post(f"{page}/resume", data={"csrf": token})
    assert resumed.headers["location"] == f"{page}?done=resumed"
    assert await api_state(api, kind, path) is False

    token = await signed(app, client, "admin")
    asked = await client.post(f"{page}/delete", data={"csrf": token})
    assert asked.status_code == 200 and "<h1>Delete the " in asked.text
    assert 'name="confirm" value="yes"' in asked.text
    assert await api_state(api, kind, path) is False  # not yet
    deleted = await client.post(f"{page}/delete", data={"csrf": token, "confirm": "yes"})
    assert (deleted.status_code, deleted.headers["location"]) == (303, "/?done=deleted")
    assert await api_state(api, kind, path) == "gone"
    subject = {"monitor": "monitor", "heartbeat": "heartbeat", "target": "collector_target"}[kind]
    assert [(action, actor) for action, _, actor in await audit(app)] == [
        (f"{subject}.paused", "responder@example.com"),
        (f"{subject}.resumed", "responder@example.com"),
        (f"{subject}.deleted", "admin@example.com"),
    ]
    assert {subject_id for _, subject_id, _ in await audit(app)} == {object_id}


async def test_check_now_makes_the_monitor_due_for_the_engine(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    async with recording_server() as server:
        monitor_id = int(
            (await create_monitor(api, url=server.url("/"), check_frequency=3600))["id"]
        )
        engine = engine_of(app)
        clock.advance(5)
        await engine.tick()
        checked = (await load(app, Monitor, monitor_id)).last_checked_at
        clock.advance(60)
        assert (await load(app, Monitor, monitor_id)).next_check_at > clock.now()
        token = await signed(app, client, "responder")
        answer = await client.post(f"/monitors/{monitor_id}/check", data={"csrf": token})
        assert answer.headers["location"] == f"/monitors/{monitor_id}?done=checking"
        assert (await load(app, Monitor, monitor_id)).next_check_at == clock.now()
        await engine.tick()
        assert (await load(app, Monitor, monitor_id)).last_checked_at > checked
    assert ("monitor.check_requested", monitor_id, "responder@example.com") in await audit(app)


async def test_check_now_of_a_target_and_none_for_heartbeats(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    objects = await three_objects(api)
    target_id, target_api = objects["target"]
    clock.advance(5)
    await engine_of(app).tick()  # checked: due again in a while
    assert (await load(app, CollectorTarget, target_id)).next_check_at > clock.now()
    token = await signed(app, client, "responder")
    answer = await client.post(f"/targets/{target_id}/check", data={"csrf": token})
    assert answer.headers["location"] == f"/targets/{target_id}?done=checking"
    assert (await load(app, CollectorTarget, target_id)).next_check_at == clock.now()
    data(await api.patch(target_api, {"enabled": False}))
    answer = await client.post(f"/targets/{target_id}/check", data={"csrf": token})
    assert answer.headers["location"] == f"/targets/{target_id}?done=not_checked"
    heartbeat_id = objects["heartbeat"][0]
    page = (await client.get(f"/heartbeats/{heartbeat_id}")).text
    assert ">Check now<" not in page
    refused = await client.post(f"/heartbeats/{heartbeat_id}/check", data={"csrf": token})
    assert refused.status_code in (404, 405)


async def test_resume_ends_a_targets_pause_for_a_while(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    target_id, target_api = (await three_objects(api))["target"]
    async with app.state.ctx.db.write_sessions() as db, db.begin():
        target = await db.get(CollectorTarget, target_id)
        assert target is not None
        target.paused_until = clock.now() + timedelta(hours=3)
    token = await signed(app, client, "responder")
    assert "Paused" in (await client.get(f"/targets/{target_id}")).text
    answer = await client.post(f"/targets/{target_id}/resume", data={"csrf": token})
    assert answer.status_code == 303
    resumed = await load(app, CollectorTarget, target_id)
    assert resumed.paused_until is None and resumed.next_check_at == clock.now()
    assert data(await api.get(target_api))["attributes"]["paused_until"] is None


REFUSED = [
    ("viewer", "pause"),
    ("viewer", "resume"),
    ("viewer", "check"),
    ("viewer", "delete"),
    ("responder", "delete"),
]


@pytest.mark.parametrize(("role", "action"), REFUSED)
async def test_a_refused_role_changes_nothing(
    app: FastAPI, api: Api, client: httpx.AsyncClient, role: str, action: str
) -> None:
    objects = await three_objects(api)
    token = await signed(app, client, role)
    for kind, (object_id, path) in objects.items():
        if action == "check" and kind == "heartbeat":
            continue
        if action == "resume":
            data(
                await api.patch(path, {"enabled": False} if kind == "target" else {"paused": True})
            )
        before = await api_state(api, kind, path)
        answer = await client.post(
            f"{PAGES[kind]}/{object_id}/{action}", data={"csrf": token, "confirm": "yes"}
        )
        assert answer.status_code == 403, (kind, answer.status_code)
        assert "does not allow" in answer.text
        assert await api_state(api, kind, path) == before
    assert await audit(app) == []


async def test_another_teams_object_is_not_found(
    app: FastAPI, api: Api, other_api: Api, client: httpx.AsyncClient
) -> None:
    theirs = await three_objects(other_api)
    token = await signed(app, client, "admin")
    for kind, (object_id, path) in theirs.items():
        assert (await client.get(f"{PAGES[kind]}/{object_id}")).status_code == 404
        for action in ("pause", "delete"):
            answer = await client.post(
                f"{PAGES[kind]}/{object_id}/{action}", data={"csrf": token, "confirm": "yes"}
            )
            assert answer.status_code == 404, (kind, action)
        assert await api_state(other_api, kind, path) is False
    assert (await client.get("/monitors/999999")).status_code == 404


async def test_a_form_without_its_token_or_from_another_site_is_refused(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    object_id, path = (await three_objects(api))["monitor"]
    token = await signed(app, client, "admin")
    missing = await client.post(f"/monitors/{object_id}/pause", data={})
    forged = await client.post(f"/monitors/{object_id}/pause", data={"csrf": "0" * 40})
    cross = await client.post(
        f"/monitors/{object_id}/pause",
        data={"csrf": token},
        headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
    )
    assert [missing.status_code, forged.status_code, cross.status_code] == [403] * 3
    assert await api_state(api, "monitor", path) is False
    bulk = await client.post("/bulk", data={"action": "pause", "item": f"monitor:{object_id}"})
    assert bulk.status_code == 403 and await api_state(api, "monitor", path) is False
