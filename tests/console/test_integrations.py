"""/integrations in the console over httpx: incoming webhooks (receiving URL and curl
example; their rules editor: test_integrations_rules.py) and PagerDuty integrations created, edited and deleted
through their forms; problems beside their fields; roles and other teams refused."""

from __future__ import annotations

import html
import re

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import actions, person
from tests.factories.api import Api, data
from watchpost.incoming.models import IncomingWebhook
from watchpost.pagerduty.models import PagerDutyIntegration

RULE = {
    "started_rules-count": "1",
    "started_rules-0-rule_target": "json",
    "started_rules-0-target_field": "status",
    "started_rules-0-match_type": "equals",
    "started_rules-0-content": "firing",
}
NO_RULE = {"started_rules-count": "0"}


async def _incoming(app: FastAPI) -> list[IncomingWebhook]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(await db.scalars(select(IncomingWebhook).order_by(IncomingWebhook.id)))


async def _pagerduty(app: FastAPI) -> list[PagerDutyIntegration]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(
            await db.scalars(select(PagerDutyIntegration).order_by(PagerDutyIntegration.id))
        )


def _incoming_form(csrf: str, **more: str) -> dict[str, str]:
    return {
        "csrf": csrf,
        "name": "Alertmanager",
        "recovery_period": "0",
        "email": "on",
        "started_rule_type": "any",
        **RULE,
        "acknowledged_rule_type": "unused",
        "resolved_rule_type": "unused",
        **more,
    }


async def test_an_incoming_webhook_is_created_and_its_url_receives(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        form = await admin.get("/integrations/incoming/new")
        assert form.status_code == 200 and 'for="started_rule_type"' in form.text
        made = await admin.post("/integrations/incoming/new", data=_incoming_form(csrf))
        assert made.status_code == 303, made.text[:400]
        [row] = await _incoming(app)
        assert made.headers["location"] == f"/integrations/incoming/{row.id}?done=saved"
        page = await admin.get(made.headers["location"])
        listed = await admin.get("/integrations")
    assert row.started_rule_type == "any" and row.started_rules[0]["content"] == "firing"
    assert row.email and not row.call
    url = f"http://testserver/api/v1/incoming-webhook/{row.token}"
    assert url in page.text
    text = html.unescape(page.text)
    assert f"curl -X POST '{url}'" in text and "Content-Type: application/json" in text
    assert "Alertmanager" in listed.text and "1 rule (any)" in listed.text
    received = await client.post(url, json={"status": "firing", "title": "Disk full"})
    assert received.status_code < 300
    async with person(app, "bob@example.com", "viewer") as (viewer, _):
        seen = await viewer.get(f"/integrations/incoming/{row.id}")
    assert "Disk full" in html.unescape(seen.text)  # the last request, shown back
    assert "Edit" not in seen.text
    assert await actions(app) == ["incoming_webhook.created"]


async def test_incoming_problems_are_beside_their_fields(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        no_rule = await admin.post(
            "/integrations/incoming/new", data=_incoming_form(csrf, **NO_RULE)
        )
        bad_rule = await admin.post(
            "/integrations/incoming/new",
            data=_incoming_form(csrf, **{"started_rules-0-target_field": ""}),
        )
        bad_number = await admin.post(
            "/integrations/incoming/new", data=_incoming_form(csrf, recovery_period="-5")
        )
    for answer in (no_rule, bad_rule, bad_number):
        assert answer.status_code == 422
    assert 'id="started_rules-error"' in no_rule.text and "needs at least one" in no_rule.text
    assert 'id="started_rules-0-target_field-error"' in bad_rule.text
    assert "rule 1: target_field is required" in bad_rule.text
    assert 'value="firing"' in bad_rule.text  # kept as typed
    assert 'id="recovery_period-error"' in bad_number.text
    assert await _incoming(app) == []
    assert await actions(app) == []


async def test_an_incoming_webhook_is_edited_and_deleted_after_asking(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        await admin.post("/integrations/incoming/new", data=_incoming_form(csrf))
        [row] = await _incoming(app)
        form = await admin.get(f"/integrations/incoming/{row.id}/edit")
        assert "firing" in form.text and 'value="Alertmanager"' in form.text
        saved = await admin.post(
            f"/integrations/incoming/{row.id}/edit",
            data=_incoming_form(
                csrf, name="Grafana", started_rule_type="unused", paused="on", **NO_RULE
            ),
        )
        assert saved.status_code == 303
        asked = await admin.post(f"/integrations/incoming/{row.id}/delete", data={"csrf": csrf})
        assert asked.status_code == 200 and "Delete the incoming webhook Grafana?" in asked.text
        assert len(await _incoming(app)) == 1
        [after] = await _incoming(app)
        assert after.name == "Grafana" and after.paused and after.started_rules == []
        assert after.token == row.token
        gone = await admin.post(
            f"/integrations/incoming/{row.id}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert gone.status_code == 303 and gone.headers["location"] == "/integrations?done=deleted"
    assert await _incoming(app) == []
    assert await actions(app) == [
        "incoming_webhook.created",
        "incoming_webhook.updated",
        "incoming_webhook.deleted",
    ]


async def test_a_pagerduty_integration_is_created_edited_and_deleted(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        form = await admin.get("/integrations/pagerduty/new")
        assert 'for="key"' in form.text and 'for="severity"' in form.text
        bad = await admin.post(
            "/integrations/pagerduty/new",
            data={"csrf": csrf, "name": "PD", "key": "no spaces!", "severity": "critical"},
        )
        assert bad.status_code == 422 and 'id="key-error"' in bad.text
        assert 'value="PD"' in bad.text and await _pagerduty(app) == []
        made = await admin.post(
            "/integrations/pagerduty/new",
            data={"csrf": csrf, "name": "PD", "key": "R0utingKey1234", "severity": "error"},
        )
        assert made.status_code == 303
        [row] = await _pagerduty(app)
        assert row.severity == "error" and not row.notify_alongside_primary_responder
        page = await admin.get(made.headers["location"])
        assert "…1234" in page.text and "R0utingKey1234" not in page.text
        saved = await admin.post(
            f"/integrations/pagerduty/{row.id}/edit",
            data={
                "csrf": csrf,
                "name": "PagerDuty ops",
                "key": "R0utingKey1234",
                "severity": "warning",
                "notify_alongside_primary_responder": "on",
            },
        )
        assert saved.status_code == 303
        listed = await admin.get("/integrations")
        assert "PagerDuty ops" in listed.text
        gone = await admin.post(
            f"/integrations/pagerduty/{row.id}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert gone.status_code == 303
    assert await _pagerduty(app) == []
    assert await actions(app) == [
        "pagerduty_integration.created",
        "pagerduty_integration.updated",
        "pagerduty_integration.deleted",
    ]


async def test_roles_and_other_teams_are_refused(app: FastAPI, api: Api, other_api: Api) -> None:
    ours_in = data(await api.post("/api/v2/incoming-webhooks", {"name": "Ours"}), 201)
    ours_pd = data(
        await api.post(
            "/api/v2/pager-duty-webhooks", {"name": "OursPD", "key": "k1", "severity": "info"}
        ),
        201,
    )
    theirs_in = data(await other_api.post("/api/v2/incoming-webhooks", {"name": "Theirs"}), 201)
    theirs_pd = data(
        await other_api.post(
            "/api/v2/pager-duty-webhooks", {"name": "TheirsPD", "key": "k2", "severity": "info"}
        ),
        201,
    )
    pd_form = {"name": "X", "key": "k3", "severity": "info"}
    async with person(app, "rita@example.com", "responder") as (rita, csrf):
        listed = await rita.get("/integrations")
        refused = [
            await rita.get("/integrations/incoming/new"),
            await rita.post("/integrations/incoming/new", data=_incoming_form(csrf)),
            await rita.post(
                f"/integrations/incoming/{ours_in['id']}/edit", data=_incoming_form(csrf)
            ),
            await rita.post(
                f"/integrations/incoming/{ours_in['id']}/delete",
                data={"csrf": csrf, "confirm": "yes"},
            ),
            await rita.post("/integrations/pagerduty/new", data={"csrf": csrf, **pd_form}),
            await rita.post(
                f"/integrations/pagerduty/{ours_pd['id']}/edit", data={"csrf": csrf, **pd_form}
            ),
            await rita.post(
                f"/integrations/pagerduty/{ours_pd['id']}/delete",
                data={"csrf": csrf, "confirm": "yes"},
            ),
        ]
    assert "Ours" in listed.text and "OursPD" in listed.text and "Theirs" not in listed.text
    assert [answer.status_code for answer in refused] == [403] * len(refused)
    async with person(app, "ann@example.com", "owner") as (ann, csrf):
        missing = [
            await ann.get(f"/integrations/incoming/{theirs_in['id']}"),
            await ann.get(f"/integrations/incoming/{theirs_in['id']}/edit"),
            await ann.post(
                f"/integrations/incoming/{theirs_in['id']}/edit", data=_incoming_form(csrf)
            ),
            await ann.post(
                f"/integrations/incoming/{theirs_in['id']}/delete",
                data={"csrf": csrf, "confirm": "yes"},
            ),
            await ann.get(f"/integrations/pagerduty/{theirs_pd['id']}"),
            await ann.get(f"/integrations/pagerduty/{theirs_pd['id']}/edit"),
            await ann.post(
                f"/integrations/pagerduty/{theirs_pd['id']}/edit", data={"csrf": csrf, **pd_form}
            ),
            await ann.post(
                f"/integrations/pagerduty/{theirs_pd['id']}/delete",
                data={"csrf": csrf, "confirm": "yes"},
            ),
        ]
    assert [answer.status_code for answer in missing] == [404] * len(missing)
    names = sorted(row.name for row in await _incoming(app))
    assert names == ["Ours", "Theirs"]
    assert sorted(row.name for row in await _pagerduty(app)) == ["OursPD", "TheirsPD"]
    assert [a for a in await actions(app) if not a.endswith(".created")] == []


async def test_each_kind_is_paged_on_its_own(app: FastAPI, api: Api) -> None:
    for number in range(26):
        await api.post("/api/v2/incoming-webhooks", {"name": f"In {number:02}"})
    await api.post("/api/v2/pager-duty-webhooks", {"name": "PD", "key": "k", "severity": "info"})
    async with person(app, "ann@example.com", "viewer") as (ann, _):
        first = await ann.get("/integrations")
        second = await ann.get("/integrations?incoming_page=2")
    assert "In 24" in first.text and "In 25" not in first.text
    assert re.search(r'href="/integrations\?incoming_page=2', html.unescape(first.text))
    assert "In 25" in second.text and "In 00" not in second.text and "PD" in second.text
