"""A status report's single update edited or deleted in the console over HTTP (through the
API's own services): its message changed, a too-long one refused beside the field, deleted
after asking (the report's status then follows its remaining updates), role refusals and
another team's report a 404."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import person
from tests.console.test_status_reports import mine
from tests.factories.api import Api, data
from watchpost.status_pages.models import StatusReport, StatusUpdate


async def _report(api: Api, subdomain: str = "acme") -> tuple[str, str, list[str]]:
    """A page with one resource and a report on it with two updates: (page, report, updates)."""
    page = data(
        await api.post("/api/v2/status-pages", {"subdomain": subdomain, "company_name": "Acme"}),
        201,
    )
    base = f"/api/v2/status-pages/{page['id']}"
    body: dict[str, Any] = {"resource_type": "ManuallyTrackedItem", "public_name": "API"}
    resource = data(await api.post(f"{base}/resources", body), 201)["id"]
    report = data(
        await api.post(
            f"{base}/status-reports",
            {
                "title": "API errors",
                "message": "Looking into it",
                "affected_resources": [{"status_page_resource_id": resource, "status": "downtime"}],
            },
        ),
        201,
    )
    update = {
        "message": "Fixed",
        "affected_resources": [{"status_page_resource_id": resource, "status": "resolved"}],
    }
    url = f"{base}/status-reports/{report['id']}/status-updates"
    data(await api.post(url, update), 201)
    listed = (await api.get(url)).json()["data"]
    return page["id"], report["id"], [u["id"] for u in listed]


async def _updates(app: FastAPI, report_id: str) -> list[tuple[str, bool]]:
    async with app.state.ctx.db.read_sessions() as db:
        rows = await db.execute(
            select(StatusUpdate.message, StatusUpdate.notify_subscribers)
            .where(StatusUpdate.status_report_id == int(report_id))
            .order_by(StatusUpdate.id)
        )
        return [(m, n) for m, n in rows]


async def test_an_update_is_edited_then_deleted(app: FastAPI, api: Api) -> None:
    pid, rid, uids = await _report(api)
    base = f"/status-pages/{pid}/reports/{rid}"
    async with person(app, "rita@example.com", "responder") as (member, csrf):
        shown = await member.get(base)
        assert f'href="{base}/updates/{uids[0]}"' in shown.text
        assert f'action="{base}/updates/{uids[1]}/delete"' in shown.text
        form = await member.get(f"{base}/updates/{uids[0]}")
        assert form.status_code == 200 and ">Looking into it</textarea>" in form.text
        long = await member.post(
            f"{base}/updates/{uids[0]}", data={"csrf": csrf, "message": "x" * 50_001}
        )
        assert long.status_code == 422 and 'id="message-error"' in long.text
        saved = await member.post(
            f"{base}/updates/{uids[0]}",
            data={"csrf": csrf, "message": "Errors on checkout", "notify_subscribers": "on"},
        )
        assert saved.status_code == 303 and saved.headers["location"].endswith("update_saved")
        assert await _updates(app, rid) == [("Errors on checkout", True), ("Fixed", False)]
        asked = await member.post(f"{base}/updates/{uids[1]}/delete", data={"csrf": csrf})
        assert asked.status_code == 200 and "Delete the update" in asked.text
        assert len(await _updates(app, rid)) == 2
        gone = await member.post(
            f"{base}/updates/{uids[1]}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert gone.status_code == 303
        assert await _updates(app, rid) == [("Errors on checkout", True)]
    async with app.state.ctx.db.read_sessions() as db:
        report = await db.get(StatusReport, int(rid))
        assert report is not None and not report.resolved  # follows the update left
    assert await mine(app) == ["status_update.updated", "status_update.deleted"]


async def test_a_viewer_may_not_and_another_teams_update_is_a_404(
    app: FastAPI, api: Api, other_api: Api
) -> None:
    pid, rid, uids = await _report(api)
    base = f"/status-pages/{pid}/reports/{rid}/updates/{uids[0]}"
    async with person(app, "vic@example.com", "viewer") as (viewer, csrf):
        assert "/delete" not in (await viewer.get(f"/status-pages/{pid}/reports/{rid}")).text
        answers = [
            await viewer.get(base),
            await viewer.post(base, data={"csrf": csrf, "message": "Hacked"}),
            await viewer.post(f"{base}/delete", data={"csrf": csrf, "confirm": "yes"}),
        ]
        assert [a.status_code for a in answers] == [403] * 3
    their_pid, their_rid, their_uids = await _report(other_api, "globex")
    theirs = f"/status-pages/{their_pid}/reports/{their_rid}/updates/{their_uids[0]}"
    async with person(app, "ann@example.com", "owner") as (owner, csrf):
        answers = [
            await owner.get(theirs),
            await owner.post(theirs, data={"csrf": csrf, "message": "Hacked"}),
            await owner.post(f"{theirs}/delete", data={"csrf": csrf, "confirm": "yes"}),
            # Their update through my own report: not found either.
            await owner.post(
                f"/status-pages/{pid}/reports/{rid}/updates/{their_uids[0]}",
                data={"csrf": csrf, "message": "Hacked"},
            ),
        ]
        assert [a.status_code for a in answers] == [404] * 4
    assert [m for m, _ in await _updates(app, rid)] == ["Looking into it", "Fixed"]
    assert [m for m, _ in await _updates(app, their_rid)] == ["Looking into it", "Fixed"]
