"""/webhooks in the console over httpx: create (the signing secret once), edit, delete and
rotate (confirmed first), Send test and Retry through the real delivery machinery to a local
aiohttp receiver; the domain's problems beside their fields; roles and other teams refused."""

from __future__ import annotations

import re

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import actions, person
from tests.factories.api import Api
from tests.factories.delivery import Answer, create_webhook, deliverer_of, receiver
from watchpost.delivery.models import Delivery
from watchpost.webhooks import signing
from watchpost.webhooks.models import OutgoingWebhook

_SECRET = re.compile(r'<code id="signing-secret" class="secret">(whsec_[^<]+)</code>')


async def _webhooks(app: FastAPI) -> list[OutgoingWebhook]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(await db.scalars(select(OutgoingWebhook).order_by(OutgoingWebhook.id)))


async def _deliveries(app: FastAPI) -> list[Delivery]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(await db.scalars(select(Delivery).order_by(Delivery.id)))


def _form(csrf: str, url: str, **more: str) -> dict[str, str]:
    return {
        "csrf": csrf,
        "trigger_type": "incident_change",
        "name": "Ops hook",
        "url": url,
        "on_incident_started": "on",
        "http_method": "post",
        **more,
    }


async def test_the_new_form_shows_every_event_with_the_defaults_checked(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, _):
        page = await admin.get("/webhooks/new")
        monitor = await admin.get("/webhooks/new?trigger_type=monitor_change")
    assert page.status_code == 200
    assert "fires nothing until at least one event is chosen" in page.text
    for flag in ("started", "acknowledged", "resolved", "reopened", "comment"):
        assert f'id="on_incident_{flag}"' in page.text
        assert f'for="on_incident_{flag}"' in page.text
    checked = re.findall(r'id="(on_incident_\w+)" name="\1" value="on" checked', page.text)
    assert checked == ["on_incident_started", "on_incident_acknowledged", "on_incident_resolved"]
    assert "When someone comments on an incident." in page.text
    assert "on_incident_started" not in monitor.text
    assert "a monitor is created, updated, paused, unpaused or deleted" in monitor.text


async def test_a_webhook_is_created_its_secret_shown_once_and_a_test_delivered(
    app: FastAPI,
) -> None:
    async with receiver() as hook, person(app, "ann@example.com", "admin") as (admin, csrf):
        created = await admin.post(
            "/webhooks/new",
            data=_form(csrf, hook.url(), on_incident_comment="on", body_template=""),
        )
        assert created.status_code == 200, created.text[:500]
        found = _SECRET.search(created.text)
        assert found is not None and "shown only this once" in created.text
        secret = found.group(1)
        [webhook] = await _webhooks(app)
        assert webhook.name == "Ops hook" and webhook.url == hook.url()
        assert webhook.on_incident_started and webhook.on_incident_comment
        assert not webhook.on_incident_resolved
        assert webhook.custom_webhook_template is None
        pages = [
            await admin.get(path)
            for path in ("/webhooks", f"/webhooks/{webhook.id}", f"/webhooks/{webhook.id}/edit")
        ]
        assert all(p.status_code == 200 for p in pages)
        assert all(secret not in p.text for p in pages)
        assert "Ops hook" in pages[0].text and "Incident started, Comment added" in pages[0].text
        tested = await admin.post(f"/webhooks/{webhook.id}/test", data={"csrf": csrf})
        assert tested.status_code == 303
        shown = await admin.get(tested.headers["location"])
    assert "Test result: delivered" in shown.text and "HTTP 200" in shown.text
    assert secret not in shown.text
    [request] = hook.at("/hook")
    assert request.json()["event"] == "started"
    header = request.headers["webhook-signature"]
    timestamp = int(request.headers["webhook-timestamp"])
    assert signing.verify(secret, request.headers["webhook-id"], timestamp, request.body, header)
    [delivery] = await _deliveries(app)
    assert delivery.state == "succeeded" and delivery.status_code == 200
    assert await actions(app) == ["outgoing_webhook.created", "outgoing_webhook.tested"]


async def test_bad_values_are_shown_beside_their_fields_and_nothing_is_written(
    app: FastAPI,
) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        bad_url = await admin.post("/webhooks/new", data=_form(csrf, "not a url", name="Kept"))
        bad_body = await admin.post(
            "/webhooks/new",
            data=_form(csrf, "https://example.com/h", http_method="get", body_template="{{ x }}"),
        )
        bad_template = await admin.post(
            "/webhooks/new",
            data=_form(csrf, "https://example.com/h", body_template="{% if %}"),
        )
        bad_header = await admin.post(
            "/webhooks/new",
            data=_form(csrf, "https://example.com/h", headers_template="Host: x"),
        )
    for answer in (bad_url, bad_body, bad_template, bad_header):
        assert answer.status_code == 422
        assert "There is a problem" in answer.text
    assert 'id="url-error"' in bad_url.text and 'value="Kept"' in bad_url.text
    assert 'id="body_template-error"' in bad_body.text
    assert "cannot be used with http_method get" in bad_body.text
    assert 'id="body_template-error"' in bad_template.text and "not a valid template" in (
        bad_template.text
    )
    assert 'id="headers_template-error"' in bad_header.text
    assert await _webhooks(app) == []
    assert await actions(app) == []


async def test_edit_changes_events_and_request_and_keeps_the_stored_password(
    app: FastAPI,
) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        await admin.post(
            "/webhooks/new",
            data=_form(
                csrf,
                "https://example.com/h",
                auth_username="bot",
                auth_password="Watchpost-Test-Secret-pw",
                headers_template="X-Team: ops",
            ),
        )
        [webhook] = await _webhooks(app)
        form = await admin.get(f"/webhooks/{webhook.id}/edit")
        assert "Set. Leave empty to keep it." in form.text and "X-Team: ops" in form.text
        saved = await admin.post(
            f"/webhooks/{webhook.id}/edit",
            data={
                "csrf": csrf,
                "name": "Renamed",
                "url": "https://example.com/h",
                "on_incident_resolved": "on",
                "http_method": "put",
                "auth_username": "bot",
                "headers_template": "X-Team: ops\nX-More: yes",
            },
        )
        assert saved.status_code == 303 and saved.headers["location"].endswith("done=saved")
        moved = await admin.post(
            f"/webhooks/{webhook.id}/edit",
            data={"csrf": csrf, "name": "Renamed", "url": "https://other.example.com/h"},
        )
        assert moved.status_code == 422 and 'id="auth_password-error"' in moved.text
        shown = await admin.get(f"/webhooks/{webhook.id}")
    [after] = await _webhooks(app)
    assert after.name == "Renamed" and after.url == "https://example.com/h"
    assert after.on_incident_resolved and not after.on_incident_started
    template = after.custom_webhook_template
    assert template is not None and template.http_method == "put"
    assert template.auth_password_encrypted is not None
    assert [h["name"] for h in template.headers_template] == ["X-Team", "X-More"]
    assert "PUT, basic auth as bot, 2 extra headers" in shown.text
    assert await actions(app) == ["outgoing_webhook.created", "outgoing_webhook.updated"]


async def test_delete_and_rotate_ask_first_and_rotate_shows_the_new_secret_once(
    app: FastAPI,
) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        created = await admin.post("/webhooks/new", data=_form(csrf, "https://example.com/h"))
        first = _SECRET.search(created.text)
        assert first is not None
        [webhook] = await _webhooks(app)
        asked = await admin.post(f"/webhooks/{webhook.id}/rotate-secret", data={"csrf": csrf})
        assert asked.status_code == 200 and "Rotate the signing secret" in asked.text
        assert _SECRET.search(asked.text) is None
        assert (await _webhooks(app))[0].signing_secret_encrypted == (
            webhook.signing_secret_encrypted
        )
        rotated = await admin.post(
            f"/webhooks/{webhook.id}/rotate-secret", data={"csrf": csrf, "confirm": "yes"}
        )
        second = _SECRET.search(rotated.text)
        assert second is not None and second.group(1) != first.group(1)
        assert "The signing secret was rotated." in rotated.text
        later = await admin.get(f"/webhooks/{webhook.id}")
        assert second.group(1) not in later.text and first.group(1) not in later.text
        box = app.state.ctx.box
        [after] = await _webhooks(app)
        assert after.signing_secret_encrypted is not None
        assert box.decrypt(after.signing_secret_encrypted) == second.group(1)
        ask_delete = await admin.post(f"/webhooks/{webhook.id}/delete", data={"csrf": csrf})
        assert ask_delete.status_code == 200 and "Delete the webhook Ops hook?" in ask_delete.text
        assert len(await _webhooks(app)) == 1
        deleted = await admin.post(
            f"/webhooks/{webhook.id}/delete", data={"csrf": csrf, "confirm": "yes"}
        )
        assert (
            deleted.status_code == 303 and deleted.headers["location"] == "/webhooks?done=deleted"
        )
        assert (await admin.get(f"/webhooks/{webhook.id}")).status_code == 404
    assert await _webhooks(app) == []
    assert await actions(app) == [
        "outgoing_webhook.created",
        "outgoing_webhook.secret_rotated",
        "outgoing_webhook.deleted",
    ]


async def test_a_failed_delivery_is_retried_from_its_log(app: FastAPI) -> None:
    async with receiver() as hook, person(app, "ann@example.com", "responder") as (ann, csrf):
        hook.answer("/hook", Answer(status=500, body="<b>broken</b>"))
        async with person(app, "bob@example.com", "admin") as (admin, admin_csrf):
            await admin.post("/webhooks/new", data=_form(admin_csrf, hook.url()))
        [webhook] = await _webhooks(app)
        tested = await ann.post(f"/webhooks/{webhook.id}/test", data={"csrf": csrf})
        failed = await ann.get(tested.headers["location"])
        assert "Test result: failed" in failed.text and "HTTP 500" in failed.text
        assert "&lt;b&gt;broken&lt;/b&gt;" in failed.text and "<b>broken</b>" not in failed.text
        [delivery] = await _deliveries(app)
        assert delivery.state == "failed"
        assert f"/deliveries/{delivery.id}/retry" in failed.text
        retried = await ann.post(
            f"/webhooks/{webhook.id}/deliveries/{delivery.id}/retry", data={"csrf": csrf}
        )
        assert retried.status_code == 303
        queued = await ann.get(retried.headers["location"])
        assert "Queued again" in queued.text
        [pending] = await _deliveries(app)
        assert pending.state == "pending" and pending.next_attempt_at is not None
        report = await deliverer_of(app).tick()
        assert report.sent == 1
        done = await ann.get(f"/webhooks/{webhook.id}")
    [delivered] = await _deliveries(app)
    assert delivered.state == "succeeded" and delivered.attempts == 2
    assert "Delivered" in done.text and f"/deliveries/{delivery.id}/retry" not in done.text
    assert len(hook.at("/hook")) == 2
    assert (await actions(app))[-2:] == [
        "outgoing_webhook.tested",
        "outgoing_webhook_delivery.retried",
    ]


async def test_roles_are_checked_on_the_server(app: FastAPI) -> None:
    async with receiver() as hook:
        async with person(app, "bob@example.com", "admin") as (admin, admin_csrf):
            await admin.post("/webhooks/new", data=_form(admin_csrf, hook.url()))
            [webhook] = await _webhooks(app)
            await admin.post(f"/webhooks/{webhook.id}/test", data={"csrf": admin_csrf})
        [delivery] = await _deliveries(app)
        before = await actions(app)
        wid = webhook.id
        async with person(app, "vera@example.com", "viewer") as (vera, csrf):
            page = await vera.get(f"/webhooks/{wid}")
            assert page.status_code == 200 and "Send test" not in page.text
            assert "Rotate secret" not in page.text and "/edit" not in page.text
            assert (await vera.get("/webhooks/new")).status_code == 403
            refused = [
                await vera.post("/webhooks/new", data=_form(csrf, hook.url())),
                await vera.post(f"/webhooks/{wid}/edit", data=_form(csrf, hook.url(), name="X")),
                await vera.post(f"/webhooks/{wid}/delete", data={"csrf": csrf, "confirm": "yes"}),
                await vera.post(
                    f"/webhooks/{wid}/rotate-secret", data={"csrf": csrf, "confirm": "yes"}
                ),
                await vera.post(f"/webhooks/{wid}/test", data={"csrf": csrf}),
                await vera.post(
                    f"/webhooks/{wid}/deliveries/{delivery.id}/retry", data={"csrf": csrf}
                ),
            ]
        async with person(app, "rita@example.com", "responder") as (rita, csrf):
            page = await rita.get(f"/webhooks/{wid}")
            assert "Send test" in page.text and "Rotate secret" not in page.text
            refused += [
                await rita.post("/webhooks/new", data=_form(csrf, hook.url())),
                await rita.post(f"/webhooks/{wid}/edit", data=_form(csrf, hook.url(), name="X")),
                await rita.post(f"/webhooks/{wid}/delete", data={"csrf": csrf, "confirm": "yes"}),
                await rita.post(
                    f"/webhooks/{wid}/rotate-secret", data={"csrf": csrf, "confirm": "yes"}
                ),
            ]
    assert [answer.status_code for answer in refused] == [403] * len(refused)
    [after] = await _webhooks(app)
    assert after.name == "Ops hook"
    assert after.signing_secret_encrypted == webhook.signing_secret_encrypted
    assert len(hook.at("/hook")) == 1
    assert [d.state for d in await _deliveries(app)] == ["succeeded"]
    assert await actions(app) == before


async def test_another_teams_webhook_and_delivery_are_a_404(app: FastAPI, other_api: Api) -> None:
    async with receiver() as hook:
        theirs = await create_webhook(other_api, hook.url(), name="Theirs")
        tested = await other_api.post(f"/api/v2/outgoing-webhooks/{theirs['id']}/test", {})
        assert tested.status_code == 200
        [delivery] = await _deliveries(app)
        wid = theirs["id"]
        async with person(app, "ann@example.com", "owner") as (ann, csrf):
            listed = await ann.get("/webhooks")
            answers = [
                await ann.get(f"/webhooks/{wid}"),
                await ann.get(f"/webhooks/{wid}/edit"),
                await ann.post(f"/webhooks/{wid}/edit", data=_form(csrf, hook.url(), name="X")),
                await ann.post(f"/webhooks/{wid}/delete", data={"csrf": csrf, "confirm": "yes"}),
                await ann.post(
                    f"/webhooks/{wid}/rotate-secret", data={"csrf": csrf, "confirm": "yes"}
                ),
                await ann.post(f"/webhooks/{wid}/test", data={"csrf": csrf}),
                await ann.post(
                    f"/webhooks/{wid}/deliveries/{delivery.id}/retry", data={"csrf": csrf}
                ),
            ]
    assert "Theirs" not in listed.text
    assert [answer.status_code for answer in answers] == [404] * len(answers)
    [after] = await _webhooks(app)
    assert after.name == "Theirs"
    assert len(hook.at("/hook")) == 1
    assert [d.state for d in await _deliveries(app)] == ["succeeded"]


async def test_the_list_and_the_log_are_paged(app: FastAPI, api: Api) -> None:
    for number in range(27):
        await create_webhook(api, f"https://example.com/{number}", name=f"Hook {number:02}")
    async with person(app, "ann@example.com", "viewer") as (ann, _):
        first = await ann.get("/webhooks")
        second = await ann.get("/webhooks?page=2")
        junk = await ann.get("/webhooks?page=x")
    assert "Hook 00" in first.text and "Hook 24" in first.text and "Hook 25" not in first.text
    assert "Hook 25" in second.text and "Hook 26" in second.text and "Hook 00" not in second.text
    assert "Next page" in first.text and "Previous page" in second.text
    assert junk.status_code == 200 and "Hook 00" in junk.text


async def test_pages_need_a_signed_in_member(client: httpx.AsyncClient) -> None:
    answer = await client.get("/webhooks")
    assert answer.status_code == 303 and answer.headers["location"].startswith("/login")
