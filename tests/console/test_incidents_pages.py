"""The console's incidents over HTTP: the list's filters, an incident's timeline (real
deliveries to a local webhook receiver and a real SMTP server, an escalation policy's next
step), acting as the signed-in person, and who may act (the browser tests drive the same
pages in Chromium)."""

from __future__ import annotations

import re
from datetime import timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api, data
from tests.factories.console import add_person, csrf, sign_in
from tests.factories.delivery import (
    Answer,
    configure,
    create_webhook,
    deliverer_of,
    receiver,
    smtp_server,
)
from tests.factories.incidents import (
    create_engine_incident,
    create_heartbeat_id,
    create_monitor_id,
)
from watchpost.audit.models import AuditEvent
from watchpost.clock import FrozenClock

INCIDENTS = "/api/v2/incidents"


def _listed(html: str) -> list[str]:
    """The incident ids of a list page, in their order."""
    return re.findall(r'<td class="name"><a href="/incidents/(\d+)"', html)


async def _signed_in(app: FastAPI, client: httpx.AsyncClient, role: str, email: str) -> None:
    await add_person(app, email=email, role=role, name=email.split("@")[0].title())
    assert (await sign_in(client, email)).status_code == 303


async def test_the_list_filters_by_status_object_and_time_newest_first(
    app: FastAPI, client: httpx.AsyncClient, api: Api, clock: FrozenClock
) -> None:
    monitor = await create_monitor_id(api)
    other_monitor = await create_monitor_id(api, "https://example.org")
    heartbeat = await create_heartbeat_id(api)
    old = await create_engine_incident(app, api, name="Old outage", monitor_id=monitor)
    await api.post(f"{INCIDENTS}/{old}/resolve", {"resolved_by": "bob@example.com"})
    clock.advance(timedelta(days=10))
    acked = await create_engine_incident(app, api, name="Shop down", monitor_id=monitor)
    await api.post(f"{INCIDENTS}/{acked}/acknowledge", {"acknowledged_by": "carl@example.com"})
    clock.advance(timedelta(hours=2))
    ongoing = await create_engine_incident(app, api, name="Backup late", heartbeat_id=heartbeat)
    clock.advance(timedelta(minutes=5))
    other = await create_engine_incident(app, api, name="Docs down", monitor_id=other_monitor)
    await _signed_in(app, client, "viewer", "vera@example.com")

    page = await client.get("/incidents")
    assert page.status_code == 200 and "<h1>Incidents</h1>" in page.text
    assert _listed(page.text) == [other, ongoing, acked, old]
    assert ">Ongoing<" in page.text and ">Acknowledged<" in page.text and ">Resolved<" in page.text
    assert "carl@example.com" in page.text and "bob@example.com" in page.text
    assert f'href="/monitors/{monitor}"' in page.text
    assert f'href="/heartbeats/{heartbeat}"' in page.text
    assert 'data-live="/console/events"' in page.text

    async def ids(query: str) -> list[str]:
        answer = await client.get(f"/incidents?{query}")
        assert answer.status_code == 200, answer.text[:500]
        return _listed(answer.text)

    assert await ids("status=open") == [other, ongoing, acked]
    assert await ids("status=acknowledged") == [acked]
    assert await ids("status=resolved") == [old]
    assert await ids(f"monitor_id={monitor}") == [acked, old]
    assert await ids(f"heartbeat_id={heartbeat}&status=open") == [ongoing]
    assert await ids("period=24h") == [other, ongoing, acked]
    assert await ids("period=30d") == [other, ongoing, acked, old]
    start = (clock.now() - timedelta(days=10)).date().isoformat()
    assert await ids(f"from={start}&to={start}") == [old]
    # Pages of the size asked for, newest first, with links that keep the filters.
    first = await client.get("/incidents?status=open&per_page=2")
    assert _listed(first.text) == [other, ongoing]
    assert "page 1 of 2" in first.text
    assert 'href="/incidents?status=open&amp;per_page=2&amp;page=2"' in first.text
    assert await ids("status=open&per_page=2&page=2") == [acked]

    bad = await client.get("/incidents?monitor_id=abc&from=yesterday")
    assert bad.status_code == 422
    assert "monitor_id must be an integer id" in bad.text  # the API's own message
    assert "from must be an ISO 8601 date" in bad.text
    assert 'value="abc"' in bad.text and 'href="#monitor_id"' in bad.text


async def test_the_timeline_shows_who_was_told_and_the_next_escalation_step(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    await add_person(app, email="ann@example.com", role="responder", name="Ann")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}", delivery_retry_delays="0,60")
        async with receiver() as hook:
            hook.answer("/broken", *[Answer(status=500)] * 5)
            await create_webhook(api, hook.url("/ops"), name="Ops hook")
            await create_webhook(api, hook.url("/broken"), name="Broken hook")
            quiet = {
                f"on_incident_{flag}": False for flag in ("started", "acknowledged", "resolved")
            }
            paged = await create_webhook(api, hook.url("/paged"), name="Pager", **quiet)
            steps = [
                {
                    "type": "escalation",
                    "step_members": [{"type": "webhook", "id": int(paged["id"])}],
                },
                {
                    "type": "escalation",
                    "wait_before": 600,
                    "step_members": [{"type": "entire_team"}],
                },
            ]
            policy = data(await api.post("/api/v3/policies", {"name": "Main", "steps": steps}), 201)
            monitor = await create_monitor_id(api)
            incident = await create_engine_incident(
                app,
                api,
                name="Shop",
                cause="Status 500",
                monitor_id=monitor,
                alerts={"policy_id": int(policy["id"]), "email": True},
                check_details={
                    "url": "https://example.com/shop",
                    "http_method": "GET",
                    "response_options": {"status_code": "500"},
                    "regions": ["eu"],
                },
            )
            worker = deliverer_of(app)
            for _ in range(3):
                await worker.tick()
    assert [m["To"] for m in mailbox.messages] == ["ann@example.com"]
    assert sorted(r.path for r in hook.received) == ["/broken", "/ops", "/paged"]

    await sign_in(client, "ann@example.com")
    page = await client.get(f"/incidents/{incident}")
    assert page.status_code == 200
    text = re.sub(r"\s+", " ", page.text)
    assert "<h1>Shop</h1>" in text and ">Ongoing<" in text
    assert f'href="/monitors/{monitor}"' in text
    assert "https://example.com/shop" in text and "Status code</dt><dd>500" in text
    told = [
        "E-mail to ann@example.com: sent",
        "Webhook Ops hook: sent",
        "Webhook Broken hook: failed, will try again: HTTP 500",
        "Webhook Pager: sent",
    ]
    for line in told:
        assert line in text, line
    assert "Escalation policy Main started" in text
    assert "Next: step 2 of escalation policy Main" in text
    assert "Tell the entire team, after 600 s" in text
    assert "Tell webhook Pager — <strong>done</strong>" in text
    started = text.index("<strong>Started</strong>")
    assert started < text.index("E-mail to ann@example.com") < text.index("Next: step 2")
    # Acknowledged: the policy stops for good, so no next step is announced.
    token = await csrf(client, f"/incidents/{incident}")
    await client.post(f"/incidents/{incident}/acknowledge", data={"csrf": token})
    text = re.sub(r"\s+", " ", (await client.get(f"/incidents/{incident}")).text)
    assert "Next: step 2" not in text and "round 1 of 1 · over" in text


async def test_a_responder_acts_as_themselves_and_it_is_audited(
    app: FastAPI, client: httpx.AsyncClient, api: Api, clock: FrozenClock
) -> None:
    monitor = await create_monitor_id(api)
    incident = await create_engine_incident(app, api, monitor_id=monitor)
    await _signed_in(app, client, "responder", "ann@example.com")
    page = await client.get(f"/incidents/{incident}")
    assert ">Acknowledge</button>" in page.text and ">Reopen</button>" not in page.text
    token = await csrf(client, f"/incidents/{incident}")

    done = await client.post(f"/incidents/{incident}/acknowledge", data={"csrf": token})
    assert done.status_code == 303 and done.headers["location"] == f"/incidents/{incident}"
    shown = data(await api.get(f"{INCIDENTS}/{incident}"))["attributes"]
    assert shown["status"] == "acknowledged" and shown["acknowledged_by"] == "ann@example.com"
    page = await client.get(f"/incidents/{incident}")
    assert "Acknowledged by ann@example.com" in page.text
    assert ">Acknowledge</button>" not in page.text
    again = await client.post(f"/incidents/{incident}/acknowledge", data={"csrf": token})
    assert again.status_code == 409 and "already acknowledged" in again.text

    await client.post(f"/incidents/{incident}/comments", data={"csrf": token, "content": "On it"})
    clock.advance(timedelta(minutes=3))
    await client.post(f"/incidents/{incident}/resolve", data={"csrf": token})
    shown = data(await api.get(f"{INCIDENTS}/{incident}"))["attributes"]
    assert shown["status"] == "resolved" and shown["resolved_by"] == "ann@example.com"
    comments = (await api.get(f"{INCIDENTS}/{incident}/comments")).json()["data"]
    assert [(c["attributes"]["content"], c["attributes"]["user_email"]) for c in comments] == [
        ("On it", "ann@example.com")
    ]
    page = await client.get(f"/incidents/{incident}")
    assert ">Resolved<" in page.text and ">Reopen</button>" in page.text
    assert "Resolved by ann@example.com" in page.text and "On it" in page.text

    await client.post(f"/incidents/{incident}/reopen", data={"csrf": token})
    timeline = (await api.get(f"{INCIDENTS}/{incident}/timeline")).json()["data"]
    assert [(t["attributes"]["kind"], t["attributes"]["by"]) for t in timeline][1:] == [
        ("acknowledged", "ann@example.com"),
        ("comment", "ann@example.com"),
        ("resolved", "ann@example.com"),
        ("reopened", "ann@example.com"),
    ]
    async with app.state.ctx.db.read_sessions() as db:
        audit = (
            await db.execute(
                select(AuditEvent.action, AuditEvent.actor, AuditEvent.subject_id).order_by(
                    AuditEvent.id
                )
            )
        ).all()
    assert [row for row in audit if row[0].startswith("incident.")] == [
        ("incident.acknowledged", "ann@example.com", int(incident)),
        ("incident.commented", "ann@example.com", int(incident)),
        ("incident.resolved", "ann@example.com", int(incident)),
        ("incident.reopened", "ann@example.com", int(incident)),
    ]


async def test_a_blank_comment_is_refused_beside_the_field(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    incident = await create_engine_incident(app, api)
    await _signed_in(app, client, "responder", "ann@example.com")
    token = await csrf(client, f"/incidents/{incident}")
    answer = await client.post(
        f"/incidents/{incident}/comments", data={"csrf": token, "content": "  "}
    )
    assert answer.status_code == 422
    assert 'id="content-error"' in answer.text and "There is a problem" in answer.text
    assert (await api.get(f"{INCIDENTS}/{incident}/comments")).json()["data"] == []


async def test_a_viewer_reads_but_cannot_act_even_by_a_direct_post(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    incident = await create_engine_incident(app, api)
    await _signed_in(app, client, "viewer", "vera@example.com")
    page = await client.get(f"/incidents/{incident}")
    assert page.status_code == 200
    assert "Acknowledge</button>" not in page.text and "Resolve</button>" not in page.text
    assert 'for="content">Comment<' not in page.text
    token = await csrf(client, f"/incidents/{incident}")
    for action, form in (
        ("acknowledge", {}),
        ("resolve", {}),
        ("reopen", {}),
        ("comments", {"content": "Looking"}),
    ):
        refused = await client.post(f"/incidents/{incident}/{action}", data={"csrf": token, **form})
        assert refused.status_code == 403, action
        assert "does not allow this" in refused.text
    shown = data(await api.get(f"{INCIDENTS}/{incident}"))["attributes"]
    assert shown["status"] == "started" and shown["acknowledged_by"] is None
    assert (await api.get(f"{INCIDENTS}/{incident}/comments")).json()["data"] == []


async def test_forged_posts_are_refused_and_change_nothing(
    app: FastAPI, client: httpx.AsyncClient, api: Api
) -> None:
    incident = await create_engine_incident(app, api)
    await _signed_in(app, client, "responder", "ann@example.com")
    token = await csrf(client, f"/incidents/{incident}")
    no_token = await client.post(f"/incidents/{incident}/acknowledge", data={})
    cross_site = await client.post(
        f"/incidents/{incident}/acknowledge",
        data={"csrf": token},
        headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
    )
    assert no_token.status_code == cross_site.status_code == 403
    assert data(await api.get(f"{INCIDENTS}/{incident}"))["attributes"]["status"] == "started"


async def test_another_teams_incident_is_not_found(
    app: FastAPI, client: httpx.AsyncClient, api: Api, other_api: Api
) -> None:
    theirs = await create_engine_incident(app, other_api, name="Globex down")
    await _signed_in(app, client, "owner", "ann@example.com")
    page = await client.get(f"/incidents/{theirs}")
    assert page.status_code == 404 and "Globex down" not in page.text
    assert (await client.get("/incidents/not-a-number")).status_code == 404
    token = await csrf(client, "/incidents")
    refused = await client.post(f"/incidents/{theirs}/acknowledge", data={"csrf": token})
    assert refused.status_code == 404
    assert data(await other_api.get(f"{INCIDENTS}/{theirs}"))["attributes"]["status"] == "started"
    assert "Globex down" not in (await client.get("/incidents")).text
