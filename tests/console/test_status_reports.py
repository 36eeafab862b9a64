"""Status reports and subscribers in the console over HTTP: a report posted, updated and
resolved (seen on the public page), a maintenance scheduled and ended, errors beside their
fields, role refusals; subscribers listed, exported as CSV and removed."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import func, select

from tests.console.team_support import audit_entries, person
from tests.factories.api import Api, data
from watchpost.status_pages.models import StatusPage, StatusReport, StatusUpdate
from watchpost.subscriptions.models import StatusPageSubscriber


async def mine(app: FastAPI) -> list[str]:
    entries = await audit_entries(app)
    return [e.action for e in entries if e.actor_kind == "person" and e.action != "session.created"]


async def _page(api: Api) -> tuple[str, list[str]]:
    page = data(
        await api.post("/api/v2/status-pages", {"subdomain": "acme", "company_name": "Acme"}), 201
    )
    base = f"/api/v2/status-pages/{page['id']}/resources"
    ids = []
    for name in ("API", "Website"):
        body = {"resource_type": "ManuallyTrackedItem", "public_name": name}
        ids.append(data(await api.post(base, body), 201)["id"])
    return page["id"], ids


async def _count(app: FastAPI, model: Any) -> int:
    async with app.state.ctx.db.read_sessions() as db:
        return int(await db.scalar(select(func.count()).select_from(model)) or 0)


async def test_a_report_is_posted_updated_and_resolved(
    app: FastAPI, api: Api, client: httpx.AsyncClient
) -> None:
    pid, ids = await _page(api)
    base = f"/status-pages/{pid}/reports"
    async with person(app, "rita@example.com", "responder") as (member, csrf):
        form = await member.get(f"{base}/new")
        assert form.status_code == 200 and 'for="affected-' in form.text
        empty = await member.post(f"{base}/new", data={"csrf": csrf, "title": "", "message": "x"})
        assert empty.status_code == 422
        assert 'id="title-error"' in empty.text and 'id="affected_resources-error"' in empty.text
        bad = await member.post(
            f"{base}/new",
            data={
                "csrf": csrf,
                "title": "API errors",
                "ends_at": "not a time",
                f"affected-{ids[0]}": "downtime",
            },
        )
        assert bad.status_code == 422 and 'id="ends_at-error"' in bad.text
        assert 'value="API errors"' in bad.text
        assert await _count(app, StatusReport) == 0
        made = await member.post(
            f"{base}/new",
            data={
                "csrf": csrf,
                "title": "API errors",
                "message": "We are looking into failing API calls.",
                "notify_subscribers": "on",
                f"affected-{ids[0]}": "downtime",
            },
        )
        assert made.status_code == 303
        report_url = made.headers["location"].split("?")[0]
        public = await client.get("/status/acme")
        assert (
            "API errors" in public.text and "We are looking into failing API calls." in public.text
        )
        update = await member.post(
            f"{report_url}/updates",
            data={
                "csrf": csrf,
                "message": "Fixed; watching.",
                f"affected-{ids[0]}": "degraded",
                f"affected-{ids[1]}": "degraded",
            },
        )
        assert update.status_code == 303
        none = await member.post(f"{report_url}/updates", data={"csrf": csrf, "message": "x"})
        assert none.status_code == 422 and 'id="affected_resources-error"' in none.text
        done = await member.post(f"{report_url}/resolve", data={"csrf": csrf, "message": ""})
        assert done.status_code == 303
        shown = await member.get(report_url)
    assert "Resolved" in shown.text and "Fixed; watching." in shown.text
    async with app.state.ctx.db.read_sessions() as db:
        [report] = (await db.scalars(select(StatusReport))).all()
        assert report.resolved and {a["status"] for a in report.affected_resources} == {"resolved"}
        assert len(report.affected_resources) == 2
    assert await _count(app, StatusUpdate) == 3
    assert await mine(app) == [
        "status_report.created",
        "status_update.created",
        "status_report.resolved",
    ]


async def test_a_maintenance_is_scheduled_and_ended(app: FastAPI, api: Api) -> None:
    pid, ids = await _page(api)
    now = app.state.ctx.clock.now()
    start = (now + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    async with person(app, "ann@example.com", "admin") as (member, csrf):
        missing = await member.post(
            f"/status-pages/{pid}/reports/new",
            data={
                "csrf": csrf,
                "report_type": "maintenance",
                "title": "DB upgrade",
                "starts_at": start,
                f"affected-{ids[0]}": "maintenance",
            },
        )
        assert missing.status_code == 422 and 'id="ends_at-error"' in missing.text
        end = (now + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
        made = await member.post(
            f"/status-pages/{pid}/reports/new",
            data={
                "csrf": csrf,
                "report_type": "maintenance",
                "title": "DB upgrade",
                "starts_at": start,
                "ends_at": end,
                f"affected-{ids[0]}": "maintenance",
            },
        )
        assert made.status_code == 303
        report_url = made.headers["location"].split("?")[0]
        assert "Scheduled" in (await member.get(report_url)).text
        ended = await member.post(f"{report_url}/resolve", data={"csrf": csrf})
        assert ended.status_code == 303
        assert "Completed" in (await member.get(report_url)).text
    assert await mine(app) == ["status_report.created", "status_report.ended"]


async def test_a_viewer_posts_no_report(app: FastAPI, api: Api, other_api: Api) -> None:
    pid, ids = await _page(api)
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        made = await admin.post(
            f"/status-pages/{pid}/reports/new",
            data={"csrf": csrf, "title": "Slow", f"affected-{ids[0]}": "degraded"},
        )
        report_url = made.headers["location"].split("?")[0]
    async with person(app, "vic@example.com", "viewer") as (viewer, csrf):
        assert (await viewer.get(report_url)).status_code == 200
        answers = [
            await viewer.get(f"/status-pages/{pid}/reports/new"),
            await viewer.post(
                f"/status-pages/{pid}/reports/new",
                data={"csrf": csrf, "title": "x", f"affected-{ids[0]}": "degraded"},
            ),
            await viewer.post(
                f"{report_url}/updates", data={"csrf": csrf, f"affected-{ids[0]}": "resolved"}
            ),
            await viewer.post(f"{report_url}/resolve", data={"csrf": csrf}),
        ]
    assert [a.status_code for a in answers] == [403] * 4
    assert await _count(app, StatusReport) == 1 and await _count(app, StatusUpdate) == 1
    # Another team's report is a 404, also under its own page's id.
    theirs = data(await other_api.post("/api/v2/status-pages", {"subdomain": "globex"}), 201)["id"]
    async with person(app, "own@example.com", "owner") as (owner, csrf):
        report_id = report_url.rsplit("/", 1)[1]
        crossed = [
            await owner.get(f"/status-pages/{theirs}/reports/{report_id}"),
            await owner.post(
                f"/status-pages/{theirs}/reports/{report_id}/resolve", data={"csrf": csrf}
            ),
        ]
    assert [a.status_code for a in crossed] == [404, 404]


async def _subscribers(app: FastAPI, pid: str, count: int) -> None:
    ctx = app.state.ctx
    now = ctx.clock.now()
    async with ctx.db.write_sessions() as db, db.begin():
        page = await db.get(StatusPage, int(pid))
        assert page is not None
        for n in range(count):
            address = f"=cmd{n}@example.com" if n == 0 else f"reader{n}@example.com"
            db.add(
                StatusPageSubscriber(
                    team_id=page.team_id,
                    status_page_id=page.id,
                    kind="email",
                    address=address,
                    address_key=f"{n:064d}",
                    resource_ids=[],
                    pending_resource_ids=[],
                    confirmed_at=now if n % 2 == 0 else None,
                    requested_at=now,
                    confirm_nonce=f"c{n}",
                    unsubscribe_nonce=f"u{n}",
                    created_at=now,
                    updated_at=now,
                )
            )


async def test_subscribers_listed_exported_and_removed(app: FastAPI, api: Api) -> None:
    pid, _ = await _page(api)
    await _subscribers(app, pid, 1203)
    base = f"/status-pages/{pid}/subscribers"
    async with person(app, "vic@example.com", "viewer") as (viewer, csrf):
        assert "1203" in (await viewer.get(f"/status-pages/{pid}")).text  # the count
        assert (await viewer.get(base)).status_code == 403
        assert (await viewer.get(f"{base}.csv")).status_code == 403
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        listed = await admin.get(base)
        assert listed.status_code == 200 and "<strong>1203</strong>" in listed.text
        assert "reader1@example.com" in listed.text and "reader60@example.com" not in listed.text
        second = await admin.get(f"{base}?page=2")
        assert "reader60@example.com" in second.text
        exported = await admin.get(f"{base}.csv")
        assert exported.status_code == 200
        assert exported.headers["content-type"].startswith("text/csv")
        assert "attachment" in exported.headers["content-disposition"]
        rows = list(csv.reader(io.StringIO(exported.text)))
        assert rows[0][:3] == ["id", "kind", "address"]
        assert len(rows) == 1204
        assert rows[1][2] == "'=cmd0@example.com"  # never a formula
        assert rows[2][2] == "reader1@example.com" and rows[2][3] == "no"
        async with app.state.ctx.db.read_sessions() as db:
            victim = await db.scalar(
                select(StatusPageSubscriber.id).where(
                    StatusPageSubscriber.address == "reader1@example.com"
                )
            )
        async with person(app, "vic2@example.com", "viewer") as (viewer, vcsrf):
            refused = await viewer.post(
                f"{base}/{victim}/delete", data={"csrf": vcsrf, "confirm": "yes"}
            )
            assert refused.status_code == 403
        asked = await admin.post(f"{base}/{victim}/delete", data={"csrf": csrf})
        assert asked.status_code == 200 and "Remove the subscriber" in asked.text
        gone = await admin.post(f"{base}/{victim}/delete", data={"csrf": csrf, "confirm": "yes"})
        assert gone.status_code == 303
    assert await _count(app, StatusPageSubscriber) == 1202
    assert await mine(app) == ["status_page_subscriber.removed"]
