"""The rules and fields editor of an incoming webhook's form (console/integrations_rules.py)
over httpx: every attribute of the API's rules and fields set through the form comes back
identical from the API and survives an unchanged save; Add and Remove without storing;
the API's problems beside the row's input; items the form cannot show kept; roles and
other teams; and a request built from the page's curl example, sent to the receiving URL
of a real server, starts an incident."""

from __future__ import annotations

import html
import re
import shlex
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from tests.console.form_pages import _encode, error_beside, filled, form_of
from tests.console.team_support import actions, person
from tests.factories.api import Api, data
from tests.factories.served import serving
from watchpost.console.integrations_example import example_of
from watchpost.incoming.models import IncomingWebhook

NEW = "/integrations/incoming/new"
FORM = {"content-type": "application/x-www-form-urlencoded"}
RULE_KEYS = ("rule_target", "target_field", "match_type", "content")
FIELD_KEYS = (
    "name",
    "special_type",
    "field_target",
    "target_field",
    "match_type",
    "content",
    "content_before",
    "content_after",
)


def _rule(target: str, path: str | None, match: str, content: str | None) -> dict[str, Any]:
    return dict(zip(RULE_KEYS, (target, path, match, content), strict=True))


def _field(n: int, **more: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": f"Key {n}",
        "special_type": f"kind_{n}",
        "field_target": "json",
        "target_field": f"alert.f{n}",
        "match_type": "match_between",
        "content": f"c{n}",
        "content_before": f">{n}",
        "content_after": f"<{n}",
    }
    return spec | more


FULL: dict[str, Any] = {
    "started_rules": [
        _rule("json", "alert.status", "equals", "firing"),
        _rule("header", "X-Source", "contains_not", "test"),
        _rule("query_string", "env", "matches_regex", "^prod-[0-9]+$"),
    ],
    "acknowledged_rules": [
        _rule("body", None, "contains", "acknowledged"),
        _rule("xml", "//state", "equals_not", "open"),
    ],
    "resolved_rules": [_rule("json", "alert.status", "matches_regex_not", "firing|pending")],
    "title_field": _field(1, match_type="match_everything"),
    "cause_field": _field(2, field_target="body", target_field=None, match_type="match_after"),
    "started_alert_id_field": _field(3, field_target="header", match_type="match_before"),
    "acknowledged_alert_id_field": _field(4, match_type="match_regex", content="id=(\\w+)"),
    "resolved_alert_id_field": _field(5, field_target="query_string"),
    "other_started_fields": [_field(6), _field(7, field_target="xml")],
    "other_acknowledged_fields": [_field(8, match_type="match_everything")],
    "other_resolved_fields": [_field(9), _field(10), _field(11, match_type="match_after")],
}


def _rows(groups: dict[str, Any]) -> dict[str, str]:
    """The groups as the form's numbered inputs (null: an empty input)."""
    posted: dict[str, str] = {}
    for name, value in groups.items():
        items = value if isinstance(value, list) else [] if value is None else [value]
        posted[f"{name}-count"] = str(len(items))
        for i, item in enumerate(items):
            posted |= {f"{name}-{i}-{key}": text or "" for key, text in item.items()}
    return posted


def _form(csrf: str, groups: dict[str, Any] | None = None, **more: str) -> dict[str, str]:
    return {
        "csrf": csrf,
        "name": "Alertmanager",
        "recovery_period": "0",
        "started_rule_type": "all",
        "acknowledged_rule_type": "any",
        "resolved_rule_type": "all",
        **_rows(FULL if groups is None else groups),
        **more,
    }


async def _stored(app: FastAPI) -> list[IncomingWebhook]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(await db.scalars(select(IncomingWebhook).order_by(IncomingWebhook.id)))


async def test_every_attribute_set_through_the_form_comes_back_from_the_api(
    app: FastAPI, api: Api
) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        made = await admin.post(NEW, data=_form(csrf))
        assert made.status_code == 303, error_beside(made.text, "form") or made.text[:600]
        [row] = await _stored(app)
        shown = data(await api.get(f"/api/v2/incoming-webhooks/{row.id}"))["attributes"]
        assert {name: shown[name] for name in FULL} == FULL
        assert [shown[f"{k}_rule_type"] for k in ("started", "acknowledged", "resolved")] == [
            "all",
            "any",
            "all",
        ]
        # The edit form shows every value: saved unchanged, nothing changes.
        action = f"/integrations/incoming/{row.id}/edit"
        page = await admin.get(action)
        assert 'value="^prod-[0-9]+$"' in page.text and 'value="id=(\\w+)"' in page.text
        again = await admin.post(action, content=_encode(form_of(page.text, action)), headers=FORM)
        assert again.status_code == 303, again.text[:600]
        after = data(await api.get(f"/api/v2/incoming-webhooks/{row.id}"))["attributes"]
        # Emptied through the form: lists empty, fields null (as the API's PATCH does).
        cleared = await admin.post(
            action,
            data=_form(csrf, dict.fromkeys(FULL), started_rule_type="unused")
            | {"acknowledged_rule_type": "unused", "resolved_rule_type": "unused"},
        )
        assert cleared.status_code == 303, cleared.text[:600]
    assert after == shown | {"updated_at": after["updated_at"]}
    emptied = data(await api.get(f"/api/v2/incoming-webhooks/{row.id}"))["attributes"]
    assert {name: emptied[name] for name in FULL} == {
        name: [] if isinstance(value, list) else None for name, value in FULL.items()
    }
    assert await actions(app) == ["incoming_webhook.created", *["incoming_webhook.updated"] * 2]


async def test_rows_are_added_and_removed_without_storing(app: FastAPI) -> None:
    two = {"started_rules": FULL["started_rules"][:2]}
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        empty = await admin.get(NEW)
        assert "Set the incident title" in empty.text and "started_rules-0-" not in empty.text
        added = await admin.post(NEW, data=_form(csrf, two, op="add-started_rules"))
        removed = await admin.post(NEW, data=_form(csrf, two, op="remove-started_rules-0"))
        titled = await admin.post(NEW, data=_form(csrf, two, op="add-title_field"))
        untitled = await admin.post(
            NEW, data=_form(csrf, {"title_field": _field(1)}, op="remove-title_field-0")
        )
    assert added.status_code == removed.status_code == titled.status_code == 200
    fields = dict(form_of(added.text, NEW))
    assert fields["started_rules-count"] == "3" and fields["started_rules-2-rule_target"] == "json"
    assert fields["started_rules-0-content"] == "firing"  # typed values kept
    assert fields["started_rules-1-rule_target"] == "header"
    assert fields["started_rules-2-content"] == "" and fields["name"] == "Alertmanager"
    left = dict(form_of(removed.text, NEW))
    assert left["started_rules-count"] == "1" and left["started_rules-0-target_field"] == "X-Source"
    title = dict(form_of(titled.text, NEW))
    assert title["title_field-count"] == "1" and title["title_field-0-field_target"] == "json"
    assert "Set the incident title" not in titled.text
    assert dict(form_of(untitled.text, NEW))["title_field-count"] == "0"
    assert await _stored(app) == [] and await actions(app) == []


async def test_the_apis_problems_are_beside_the_rows_input(app: FastAPI) -> None:
    groups = {
        "started_rules": [
            FULL["started_rules"][0],
            _rule("json", "", "equals", "x"),
            _rule("body", None, "matches_regex", "(a)\\1"),
        ],
        "title_field": _field(1, match_type="match_before", content=None),
        "other_resolved_fields": [_field(2), _field(3, content_before=None)],
    }
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        answer = await admin.post(NEW, data=_form(csrf, groups, name="x" * 300))
    assert answer.status_code == 422
    page = answer.text
    assert "rule 2: target_field is required" in error_beside(page, "started_rules-1-target_field")
    assert "RE2" in error_beside(page, "started_rules-2-content")
    assert error_beside(page, "started_rules-0-target_field") == ""
    assert "Incident title: content is required" in error_beside(page, "title_field-0-content")
    assert "field 2: content_before" in error_beside(page, "other_resolved_fields-1-content_before")
    assert error_beside(page, "name")
    assert dict(form_of(page, NEW))["started_rules-2-content"] == "(a)\\1"  # kept as typed
    assert await _stored(app) == [] and await actions(app) == []


async def test_an_item_the_form_cannot_show_is_kept_as_stored(app: FastAPI, api: Api) -> None:
    made = data(await api.post("/api/v2/incoming-webhooks", {"name": "Old"}), 201)
    odd = {"rule_target": "subject", "match_type": "contains", "content": "DOWN"}
    async with app.state.ctx.db.write_sessions() as db, db.begin():
        row = await db.get(IncomingWebhook, int(made["id"]))
        assert row is not None
        row.started_rules = [FULL["started_rules"][0], odd]  # stored by an older version
    action = f"/integrations/incoming/{made['id']}/edit"
    async with person(app, "ann@example.com", "admin") as (admin, _):
        page = await admin.get(action)
        assert "The form cannot show this rule" in page.text
        assert '"rule_target": "subject"' in html.unescape(page.text)
        fields = form_of(page.text, action)
        added = await admin.post(
            action, content=_encode(filled(fields, op="add-title_field")), headers=FORM
        )
        assert (
            dict(form_of(added.text, action))["started_rules-1-kept"]
            == dict(fields)["started_rules-1-kept"]
        )
        refused = await admin.post(action, content=_encode(fields), headers=FORM)
        assert refused.status_code == 422
        assert "subject is not one of" in error_beside(refused.text, "started_rules-1-kept")
        [kept] = await _stored(app)
        assert kept.started_rules[1] == odd  # never dropped
        removed = await admin.post(
            action, content=_encode(filled(fields, op="remove-started_rules-1")), headers=FORM
        )
        saved = await admin.post(
            action, content=_encode(form_of(removed.text, action)), headers=FORM
        )
        assert saved.status_code == 303
    [after] = await _stored(app)
    assert after.started_rules == [FULL["started_rules"][0]]


async def test_roles_and_other_teams(app: FastAPI, api: Api, other_api: Api) -> None:
    ours = data(await api.post("/api/v2/incoming-webhooks", {"name": "Ours"}), 201)
    theirs = data(await other_api.post("/api/v2/incoming-webhooks", {"name": "Theirs"}), 201)
    async with person(app, "rita@example.com", "responder") as (rita, csrf):
        refused = [
            await rita.get(f"/integrations/incoming/{ours['id']}/edit"),
            await rita.post(NEW, data=_form(csrf, op="add-started_rules")),
            await rita.post(
                f"/integrations/incoming/{ours['id']}/edit",
                data=_form(csrf, op="add-started_rules"),
            ),
        ]
        page = await rita.get(f"/integrations/incoming/{ours['id']}")
    assert [answer.status_code for answer in refused] == [403] * 3
    assert page.status_code == 200 and "curl -X POST" in html.unescape(page.text)
    async with person(app, "ann@example.com", "owner") as (ann, csrf):
        missing = [
            await ann.get(f"/integrations/incoming/{theirs['id']}/edit"),
            await ann.post(
                f"/integrations/incoming/{theirs['id']}/edit",
                data=_form(csrf, op="add-started_rules"),
            ),
            await ann.post(
                f"/integrations/incoming/{theirs['id']}/edit",
                data=_form(csrf, op="remove-started_rules-0"),
            ),
        ]
    assert [answer.status_code for answer in missing] == [404] * 3
    assert [row.started_rules for row in await _stored(app)] == [[], []]


def _request_of(command: str, base: str) -> httpx.Request:
    """The curl command shown on the page as the request it sends (the page's URL is the
    test client's; sent to the real server instead)."""
    words = shlex.split(command.replace("\\\n", " "))
    assert words[:3] == ["curl", "-X", "POST"]
    url, body = words[3], ""
    headers: dict[str, str] = {}
    for flag, value in zip(words[4::2], words[5::2], strict=True):
        if flag == "-H":
            name, _, text = value.partition(": ")
            headers[name] = text
        else:
            assert flag == "-d"
            body = value
    target = url.replace("http://testserver", base)
    return httpx.Request("POST", target, headers=headers, content=body.encode())


async def test_rules_made_in_the_form_start_an_incident_from_a_real_request(
    app: FastAPI, api: Api
) -> None:
    groups = {
        "started_rules": [
            _rule("json", "alert.labels.severity", "equals", "critical"),
            _rule("header", "X-Source", "contains", "grafana"),
            _rule("query_string", "env", "matches_regex", "^prod$"),
            _rule("body", None, "contains_not", "test-run"),
        ],
        "title_field": _field(1, match_type="match_everything", target_field="alert.title"),
    }
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        made = await admin.post(
            NEW,
            data=_form(csrf, groups, acknowledged_rule_type="unused", resolved_rule_type="unused"),
        )
        assert made.status_code == 303, made.text[:600]
        page = await admin.get(made.headers["location"])
    shown = re.search(r'<pre class="curl" id="curl-example"[^>]*>(.*?)</pre>', page.text, re.S)
    assert shown is not None and 'id="curl-note"' not in page.text
    command = html.unescape(shown.group(1))
    async with serving(app) as base, httpx.AsyncClient(timeout=30) as http:
        plain = await http.post(f"{base}/api/v1/incoming-webhook/{(await _stored(app))[0].token}")
        answer = await http.send(_request_of(command, base))
    assert plain.json() == {"result": "ignored"}  # the rules decide: not any request
    assert answer.status_code == 200 and answer.json() == {"result": "started"}
    [incident] = (await api.get("/api/v2/incidents")).json()["data"]
    assert incident["attributes"]["name"] == "Disk almost full on db-1"


def test_the_example_says_when_no_request_satisfies_the_rules() -> None:
    xml = [_rule("xml", "//x", "equals", "y")]
    assert example_of("all", xml, None).note is not None
    both = [_rule("json", "a", "equals", "1"), _rule("json", "a", "equals", "2")]
    assert example_of("all", both, None).note is not None
    chosen = example_of("any", [*xml, _rule("header", "X-Kind", "matches_regex", "^a+$")], None)
    assert chosen.note is None and chosen.headers == {"X-Kind": "a"}
    negated = example_of("all", [_rule("body", None, "matches_regex_not", "^$|example")], None)
    assert negated.note is None
