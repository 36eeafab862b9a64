"""The status page screens over HTTP: the list, a new page, its settings (errors beside
fields, the password never shown), sections and resources (added, moved without
JavaScript, moved by a drop, removed), role refusals, another team's page a 404, audit
entries."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Literal

import httpx
from fastapi import FastAPI
from sqlalchemy import event, select

from tests.console.team_support import audit_entries, person
from tests.factories.api import Api, data
from tests.factories.history import at, obs, write
from watchpost.clock import FrozenClock
from watchpost.console.status_pages_kit import state_of
from watchpost.incidents.models import Incident
from watchpost.status_pages import resources
from watchpost.status_pages.models import StatusPage, StatusPageResource, StatusPageSection
from watchpost.status_pages.page_states import page_states

PAGES = "/api/v2/status-pages"


async def _page(api: Api, subdomain: str = "acme-status", **extra: Any) -> dict[str, Any]:
    body = {"subdomain": subdomain, "company_name": "Acme status", **extra}
    return data(await api.post("/api/v2/status-pages", body), 201)


async def mine(app: FastAPI, team: str = "acme") -> list[str]:
    """The audit actions people took in the console (the API's own entries left out)."""
    entries = await audit_entries(app, team)
    return [e.action for e in entries if e.actor_kind == "person" and e.action != "session.created"]


async def _order(app: FastAPI, page_id: str) -> list[tuple[int, int, int]]:
    """(section position, resource position, resource id) in page order."""
    async with app.state.ctx.db.read_sessions() as db:
        rows = await db.execute(
            select(StatusPageSection.position, StatusPageResource.position, StatusPageResource.id)
            .join(
                StatusPageSection, StatusPageSection.id == StatusPageResource.status_page_section_id
            )
            .where(StatusPageResource.status_page_id == int(page_id))
            .order_by(StatusPageSection.position, StatusPageResource.position)
        )
        return [tuple(row) for row in rows]


async def _built(api: Api) -> tuple[dict[str, Any], list[str], list[str]]:
    """A page with two sections and two monitors in the first, one heartbeat in the second:
    the page, the section ids and the resource ids (in page order)."""
    page = await _page(api)
    pid = page["id"]
    api_url = f"/api/v2/status-pages/{pid}"
    one = data(await api.post(f"{api_url}/sections", {"name": "Website"}), 201)
    two = data(await api.post(f"{api_url}/sections", {"name": "Jobs"}), 201)
    web = data(await api.post("/api/v2/monitors", {"url": "https://example.com"}), 201)
    shop = data(await api.post("/api/v2/monitors", {"url": "https://shop.example.com"}), 201)
    beat = data(await api.post("/api/v2/heartbeats", {"name": "Nightly backup"}), 201)
    ids = []
    for section, kind, item in (
        (one, "Monitor", web),
        (one, "Monitor", shop),
        (two, "Heartbeat", beat),
    ):
        body = {
            "status_page_section_id": int(section["id"]),
            "resource_type": kind,
            "resource_id": item["id"],
        }
        ids.append(data(await api.post(f"{api_url}/resources", body), 201)["id"])
    return page, [one["id"], two["id"]], ids


async def test_the_list_shows_state_and_addresses(app: FastAPI, api: Api, other_api: Api) -> None:
    await _page(api, custom_domain="status.acme.example")
    await _page(other_api, subdomain="globex-status")
    async with person(app, "vic@example.com", "viewer") as (client, _):
        listed = await client.get("/status-pages")
    assert listed.status_code == 200
    assert "Acme status" in listed.text and "/status/acme-status" in listed.text
    # Breaks after the scheme and between the labels, not inside one.
    assert "https://<wbr>status.<wbr>acme.<wbr>example" in listed.text
    assert "All up" in listed.text
    assert "globex-status" not in listed.text
    assert "New status page" not in listed.text  # a viewer creates nothing


async def test_create_then_edit_settings_through_the_domain(app: FastAPI, api: Api) -> None:
    await _page(api, subdomain="taken")
    async with person(app, "ann@example.com", "admin") as (client, csrf):
        bad = await client.post(
            "/status-pages/new",
            data={
                "csrf": csrf,
                "company_name": "Acme",
                "subdomain": "taken",
                "timezone": "UTC",
                "theme": "light",
            },
        )
        assert bad.status_code == 422
        assert 'id="subdomain-error"' in bad.text and "already taken" in bad.text
        assert 'value="Acme"' in bad.text  # kept
        made = await client.post(
            "/status-pages/new",
            data={
                "csrf": csrf,
                "company_name": "Acme",
                "subdomain": "acme",
                "timezone": "UTC",
                "theme": "dark",
            },
        )
        assert made.status_code == 303
        page_url = made.headers["location"].split("?")[0]
        pid = page_url.rsplit("/", 1)[1]
        form = await client.get(f"{page_url}/settings")
        assert form.status_code == 200 and 'value="acme"' in form.text
        fields = {
            "csrf": csrf,
            "company_name": "Acme Inc",
            "subdomain": "acme",
            "custom_domain": "status.acme.example",
            "timezone": "Europe/Berlin",
            "theme": "dark",
            "layout": "vertical",
            "design": "v2",
            "history": "3",
            "min_incident_length": "0",
            "published": "on",
            "ip_allowlist": "10.0.0.0/8\n# office",
            "navigation_links": "Docs: https://docs.acme.example",
        }
        wrong = await client.post(f"{page_url}/settings", data=fields)
        assert wrong.status_code == 422
        assert 'id="history-error"' in wrong.text and 'value="Acme Inc"' in wrong.text
        secret = "correct horse battery"
        saved = await client.post(
            f"{page_url}/settings",
            data={**fields, "history": "30", "password_enabled": "on", "password": secret},
        )
        assert saved.status_code == 303, saved.text[:2000]
        editor = await client.get(page_url)
        settings = await client.get(f"{page_url}/settings")
    assert "status.acme.example. CNAME testserver." in editor.text
    assert secret not in editor.text and secret not in settings.text
    assert "Set. Leave empty to keep it." in settings.text
    async with app.state.ctx.db.read_sessions() as db:
        row = await db.get(StatusPage, int(pid))
        assert row is not None
    assert row.company_name == "Acme Inc" and row.history == 30 and row.timezone == "Europe/Berlin"
    assert row.ip_allowlist == ["10.0.0.0/8", "# office"]
    assert row.navigation_links == [{"text": "Docs", "href": "https://docs.acme.example"}]
    assert row.password_enabled and row.password_hash and secret not in row.password_hash
    assert await mine(app) == ["status_page.created", "status_page.updated"]


async def test_resources_added_moved_without_javascript_and_removed(app: FastAPI, api: Api) -> None:
    page, sections, ids = await _built(api)
    pid = page["id"]
    base = f"/status-pages/{pid}"
    async with person(app, "ann@example.com", "admin") as (client, csrf):
        editor = await client.get(base)
        assert editor.status_code == 200
        assert editor.text.index("example.com") < editor.text.index("Nightly backup")
        # Move down: the first monitor below the second.
        moved = await client.post(
            f"{base}/resources/{ids[0]}/move", data={"csrf": csrf, "direction": "down"}
        )
        assert moved.status_code == 303
        assert [r for _, _, r in await _order(app, pid)] == [int(ids[1]), int(ids[0]), int(ids[2])]
        # Down from the bottom of a section: the top of the next one.
        await client.post(
            f"{base}/resources/{ids[0]}/move", data={"csrf": csrf, "direction": "down"}
        )
        assert await _order(app, pid) == [
            (0, 0, int(ids[1])),
            (1, 0, int(ids[0])),
            (1, 1, int(ids[2])),
        ]
        # Up again from the top of the second: the end of the first.
        await client.post(f"{base}/resources/{ids[0]}/move", data={"csrf": csrf, "direction": "up"})
        assert await _order(app, pid) == [
            (0, 0, int(ids[1])),
            (0, 1, int(ids[0])),
            (1, 0, int(ids[2])),
        ]
        # A drop (what console.js posts): the heartbeat to the top of the first section.
        dropped = await client.post(
            f"{base}/resources/{ids[2]}/move",
            data={"csrf": csrf, "section_id": sections[0], "position": "0"},
            headers={"X-Requested-With": "fetch"},
        )
        assert dropped.status_code == 204
        assert [r for _, _, r in await _order(app, pid)] == [int(ids[2]), int(ids[1]), int(ids[0])]
        # Sections: the second moved up.
        await client.post(
            f"{base}/sections/{sections[1]}/move", data={"csrf": csrf, "direction": "up"}
        )
        # Add one: a wrong widget for a heartbeat is shown beside its field.
        beat = data(await api.post("/api/v2/heartbeats", {"name": "Queue"}), 201)
        wrong = await client.post(
            f"{base}/resources",
            data={
                "csrf": csrf,
                "item": f"Heartbeat:{beat['id']}",
                "widget_type": "response_times",
                "section_id": sections[1],
            },
        )
        assert wrong.status_code == 422
        assert 'id="widget_type-error"' in wrong.text and "does not fit" in wrong.text
        none = await client.post(
            f"{base}/resources", data={"csrf": csrf, "item": "", "widget_type": "plain"}
        )
        assert none.status_code == 422 and 'id="item-error"' in none.text
        added = await client.post(
            f"{base}/resources",
            data={
                "csrf": csrf,
                "item": f"Heartbeat:{beat['id']}",
                "widget_type": "plain",
                "section_id": sections[1],
                "public_name": "Queue worker",
            },
        )
        assert added.status_code == 303
        assert "Queue worker" in (await client.get(base)).text
        # Remove: asked first, then done.
        asked = await client.post(f"{base}/resources/{ids[1]}/delete", data={"csrf": csrf})
        assert asked.status_code == 200 and "Remove the resource" in asked.text
        assert len(await _order(app, pid)) == 4
        gone = await client.post(
            f"{base}/resources/{ids[1]}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert gone.status_code == 303
        assert int(ids[1]) not in [r for _, _, r in await _order(app, pid)]
        section = await client.post(
            f"{base}/sections", data={"csrf": csrf, "section_name": "x" * 300}
        )
        assert section.status_code == 422 and 'id="section_name-error"' in section.text
    assert await mine(app) == [
        "status_page_resource.moved",
        "status_page_resource.moved",
        "status_page_resource.moved",
        "status_page_resource.moved",
        "status_page_section.moved",
        "status_page_resource.created",
        "status_page_resource.deleted",
    ]
    [entry] = [e for e in await audit_entries(app) if e.action == "status_page_resource.created"]
    assert entry.actor == "ann@example.com" and "Queue worker" in (entry.subject or "")


async def test_a_responder_changes_no_layout_and_a_viewer_nothing(app: FastAPI, api: Api) -> None:
    page, sections, ids = await _built(api)
    base = f"/status-pages/{page['id']}"
    before = await _order(app, page["id"])
    for role in ("viewer", "responder"):
        async with person(app, f"{role}@example.com", role) as (client, csrf):
            assert (await client.get(base)).status_code == 200
            answers = [
                await client.post(
                    f"{base}/resources/{ids[0]}/move", data={"csrf": csrf, "direction": "down"}
                ),
                await client.post(
                    f"{base}/resources/{ids[0]}/delete", data={"csrf": csrf, "confirm": "yes"}
                ),
                await client.post(f"{base}/sections", data={"csrf": csrf, "section_name": "New"}),
                await client.post(
                    f"{base}/sections/{sections[0]}/delete", data={"csrf": csrf, "confirm": "yes"}
                ),
                await client.post(
                    f"{base}/sections/{sections[0]}/move", data={"csrf": csrf, "direction": "down"}
                ),
                await client.post(
                    f"{base}/settings", data={"csrf": csrf, "company_name": "Hacked"}
                ),
                await client.post(f"{base}/delete", data={"csrf": csrf, "confirm": "yes"}),
                await client.post("/status-pages/new", data={"csrf": csrf, "subdomain": "mine"}),
                await client.post(
                    f"{base}/resources", data={"csrf": csrf, "item": "ManuallyTrackedItem:"}
                ),
            ]
            assert [a.status_code for a in answers] == [403] * len(answers)
    assert await _order(app, page["id"]) == before
    assert await mine(app) == []


async def test_another_teams_page_is_a_404(app: FastAPI, api: Api, other_api: Api) -> None:
    theirs, sections, ids = await _built(other_api)
    base = f"/status-pages/{theirs['id']}"
    async with person(app, "ann@example.com", "owner") as (client, csrf):
        answers = [
            await client.get(base),
            await client.get(f"{base}/settings"),
            await client.get(f"{base}/preview"),
            await client.get(f"{base}/reports"),
            await client.get(f"{base}/subscribers"),
            await client.get(f"{base}/subscribers.csv"),
            await client.post(
                f"{base}/resources/{ids[0]}/move", data={"csrf": csrf, "direction": "down"}
            ),
            await client.post(
                f"{base}/resources/{ids[0]}/delete", data={"csrf": csrf, "confirm": "yes"}
            ),
            await client.post(
                f"{base}/sections/{sections[0]}/delete", data={"csrf": csrf, "confirm": "yes"}
            ),
            await client.post(f"{base}/settings", data={"csrf": csrf, "company_name": "Hacked"}),
            await client.post(f"{base}/delete", data={"csrf": csrf, "confirm": "yes"}),
            await client.post(f"{base}/reports/new", data={"csrf": csrf, "title": "x"}),
        ]
    assert [a.status_code for a in answers] == [404] * len(answers)
    assert len(await _order(app, theirs["id"])) == 3
    assert await mine(app, "globex") == []


async def test_preview_shows_a_protected_unpublished_page_to_members_only(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    page = await _page(api, published=False, password_enabled=True, password="a long password")
    assert (await client.get("/status/acme-status")).status_code == 404  # the public address
    async with person(app, "vic@example.com", "viewer") as (member, _):
        shown = await member.get(f"/status-pages/{page['id']}/preview")
    assert shown.status_code == 200 and "Acme status" in shown.text
    assert shown.headers["cache-control"] == "no-store"
    assert "noindex" in shown.headers["x-robots-tag"]
    signed_out = await client.get(f"/status-pages/{page['id']}/preview")
    assert signed_out.status_code == 303 and signed_out.headers["location"].startswith("/login")


async def test_deleting_a_page_asks_then_deletes(app: FastAPI, api: Api) -> None:
    page, _, _ = await _built(api)
    base = f"/status-pages/{page['id']}"
    async with person(app, "ann@example.com", "admin") as (client, csrf):
        asked = await client.post(f"{base}/delete", data={"csrf": csrf})
        assert asked.status_code == 200 and "Delete the status page" in asked.text
        done = await client.post(f"{base}/delete", data={"csrf": csrf, "confirm": "yes"})
        assert done.status_code == 303
        assert (await client.get(base)).status_code == 404
    assert await mine(app) == ["status_page.deleted"]


async def _checked(
    app: FastAPI,
    team_id: int,
    monitor_id: int,
    start: datetime,
    end: datetime,
    state: Literal["up", "down"] = "up",
) -> None:
    """A check of the monitor every 5 minutes in [start, end], each standing 10 minutes."""
    count = int((end - start).total_seconds() // 300) + 1
    moments = [start + timedelta(minutes=5 * n) for n in range(count)]
    await write(
        app, [obs(team_id, m, state, subject_id=monitor_id, valid_for_s=600) for m in moments]
    )


async def _open_incident(app: FastAPI, team_id: int, monitor_id: int, start: datetime) -> None:
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        session.add(
            Incident(
                team_id=team_id,
                name="Down",
                cause="timeout",
                started_at=start,
                resolved_at=None,
                metadata_={},
                created_at=start,
                updated_at=start,
                monitor_id=monitor_id,
            )
        )


async def _statements(app: FastAPI, client: httpx.AsyncClient, path: str) -> tuple[str, int]:
    """The page's HTML and how many SQL statements answering it took."""
    count = 0

    def counted(*_: Any) -> None:
        nonlocal count
        count += 1

    engine = app.state.ctx.db.engine.sync_engine
    event.listen(engine, "before_cursor_execute", counted)
    try:
        answer = await client.get(path)
    finally:
        event.remove(engine, "before_cursor_execute", counted)
    assert answer.status_code == 200
    return answer.text, count


def _state_words(html: str) -> dict[str, str]:
    """Page name → the state the list shows for it."""
    found = re.findall(
        r'<a href="/status-pages/\d+">([^<]+)</a>.*?class="state state-[a-z]+"'
        r"[^>]*>\s*([^<]+?)\s*<",
        html,
        re.S,
    )
    return {name: words for name, words in found}


async def test_the_list_reads_every_state_together_as_the_api_answers_each(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    """Pages in different states, time zones and shortest incident lengths: the list shows
    what the API's aggregate_state says of each, and reads them all with the same number of
    statements whatever the number of pages (no query per row)."""
    up = int(data(await api.post("/api/v2/monitors", {"url": "https://a.example"}), 201)["id"])
    down = int(data(await api.post("/api/v2/monitors", {"url": "https://b.example"}), 201)["id"])
    await _checked(app, api.team_id, up, at(3), at(3, 4))
    await _checked(app, api.team_id, down, at(3), at(3, 2))
    await _checked(app, api.team_id, down, at(3, 2, 5), at(3, 4), "down")
    await _open_incident(app, api.team_id, down, at(3, 2, 5))
    clock.set(at(3, 4))

    async def page(name: str, shows: list[int], **attributes: Any) -> tuple[str, list[str]]:
        body = {"subdomain": name.lower().replace(" ", "-"), "company_name": name, **attributes}
        made = data(await api.post("/api/v2/status-pages", body), 201)["id"]
        rids = []
        for monitor_id in shows:
            item = {"resource_type": "Monitor", "resource_id": str(monitor_id)}
            rids.append(data(await api.post(f"{PAGES}/{made}/resources", item), 201)["id"])
        return str(made), rids

    await page("Calm", [up])
    await page("Broken Berlin", [up, down], timezone="Europe/Berlin")
    await page("Broken Short", [down], min_incident_length=600)
    reported, (rid,) = await page("Reported", [up], timezone="America/New_York")
    report = {
        "title": "Slow",
        "message": "Slower than usual.",
        "affected_resources": [{"status_page_resource_id": rid, "status": "degraded"}],
        "notify_subscribers": False,
    }
    data(await api.post(f"{PAGES}/{reported}/status-reports", report), 201)
    await page("Empty", [])
    expected = {
        "Calm": "operational",
        "Broken Berlin": "downtime",
        "Broken Short": "downtime",
        "Reported": "degraded",
        "Empty": "operational",
    }
    async with app.state.ctx.db.read_sessions() as db:
        found = list(await db.scalars(select(StatusPage).order_by(StatusPage.id)))
        batched = await page_states(db, found, now=at(3, 4))
        one_by_one = {p.id: await resources.page_state(db, page=p, now=at(3, 4)) for p in found}
    assert batched == one_by_one
    assert {p.company_name: batched[p.id] for p in found} == expected
    async with person(app, "vic@example.com", "viewer") as (client, _):
        html, before = await _statements(app, client, "/status-pages")
        assert _state_words(html) == {name: state_of(state)[1] for name, state in expected.items()}
        for n in range(6):  # more pages of a time zone already listed: no more statements
            await page(f"More {n}", [up, down])
        html, after = await _statements(app, client, "/status-pages")
        assert _state_words(html)["More 5"] == "Down"
        assert after == before, (before, after)


async def test_the_dns_record_of_a_server_known_by_its_address_is_an_a_record(
    app: FastAPI, api: Api
) -> None:
    page = await _page(api, custom_domain="status.acme.example")
    async with person(app, "ann@example.com", "admin") as (client, _):
        for host, record in (
            ("192.0.2.7", "status.acme.example. A 192.0.2.7<"),
            ("[2001:db8::7]", "status.acme.example. AAAA 2001:db8::7<"),
            ("console.acme.example", "status.acme.example. CNAME console.acme.example.<"),
        ):
            editor = await client.get(f"/status-pages/{page['id']}", headers={"Host": host})
            settings = await client.get(
                f"/status-pages/{page['id']}/settings", headers={"Host": host}
            )
            assert editor.status_code == settings.status_code == 200
            assert record in editor.text and record in settings.text, host
