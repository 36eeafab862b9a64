"""/channels over HTTP: a channel built from a kind's form (the server writes the Apprise
URL), its errors beside their fields, the stored URL and its secrets never in a page again,
secrets kept when left empty, a real test send, deletion after a confirmation, audit
entries, and the server's checks of role and team on every POST."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from tests.console.team_support import actions, audit_entries, person
from tests.factories.api import Api, data
from tests.factories.delivery import receiver, smtp_server
from watchpost.channels.models import NotificationChannel

CHANNELS = "/api/v2/notification-channels"
TOKEN = "tk_s3cretAccessT0ken"


async def rows(app: FastAPI) -> list[NotificationChannel]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(await db.scalars(select(NotificationChannel).order_by(NotificationChannel.id)))


def url_of(app: FastAPI, row: NotificationChannel) -> str:
    return str(app.state.ctx.box.decrypt(row.url_encrypted))


def ntfy(port: int, **more: str) -> dict[str, str]:
    return {
        "kind": "ntfy",
        "name": "Phones",
        "server": f"http://127.0.0.1:{port}",
        "topic": "ops-alerts",
        "priority": "high",
        "token": TOKEN,
        **more,
    }


async def pages_of(admin: httpx.AsyncClient, row_id: int) -> str:
    """Every page that shows the channel, as one text."""
    paths = ["/channels", f"/channels/{row_id}/edit", "/channels/new?kind=ntfy"]
    answers = [await admin.get(path) for path in paths]
    assert all(a.status_code == 200 for a in answers), [a.status_code for a in answers]
    return "\n".join(a.text for a in answers)


async def test_a_channel_built_from_the_form_sends_its_test_and_never_shows_its_secret(
    app: FastAPI,
) -> None:
    async with receiver() as hook, person(app, "ann@example.com", "admin") as (admin, csrf):
        created = await admin.post("/channels/new", data={"csrf": csrf, **ntfy(hook.port)})
        assert (
            created.status_code == 303 and created.headers["location"] == "/channels?done=created"
        )
        [row] = await rows(app)
        url = url_of(app, row)
        assert row.service == "ntfy" and row.name == "Phones"
        assert url.startswith(f"ntfy://{TOKEN}@127.0.0.1:{hook.port}/ops-alerts?")
        shown = await pages_of(admin, row.id)
        assert "Channel created." in (await admin.get("/channels?done=created")).text
        assert TOKEN not in shown and url not in shown and "s3cret" not in shown
        edit = (await admin.get(f"/channels/{row.id}/edit")).text
        assert 'value="ops-alerts"' in edit and "Stored, not shown" in edit
        tested = await admin.post(f"/channels/{row.id}/test", data={"csrf": csrf})
        [request] = hook.received
    assert tested.status_code == 200 and "Test sent to Phones" in tested.text
    assert TOKEN not in tested.text
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    sent = request.json()
    assert sent["topic"] == "ops-alerts" and request.headers["X-Priority"] == "high"
    assert "Test incident" in sent["title"]
    entries = [e for e in await audit_entries(app) if e.action.startswith("notification_channel")]
    assert [e.action for e in entries] == [
        "notification_channel.created",
        "notification_channel.tested",
    ]
    assert entries[0].actor == "ann@example.com" and entries[0].subject == "Phones"
    assert TOKEN not in str([(e.subject, e.details) for e in entries])


async def test_a_failed_test_says_why_without_the_secret(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        await admin.post("/channels/new", data={"csrf": csrf, **ntfy(9)})
        [row] = await rows(app)
        tested = await admin.post(f"/channels/{row.id}/test", data={"csrf": csrf})
    assert tested.status_code == 200
    assert "The test to Phones failed" in tested.text and 'role="alert"' in tested.text
    assert TOKEN not in tested.text and url_of(app, row) not in tested.text


async def test_a_test_send_gives_back_every_connection(app: FastAPI) -> None:
    """The page after a test send is read before the audit entry's write session opens: a
    read session used after it would keep a pooled connection (in a transaction) that
    nothing returns."""
    pool = app.state.ctx.db.engine.sync_engine.pool
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        await admin.post("/channels/new", data={"csrf": csrf, **ntfy(9)})
        [row] = await rows(app)
        tested = await admin.post(f"/channels/{row.id}/test", data={"csrf": csrf})
        assert tested.status_code == 200 and "The test to Phones failed" in tested.text
        assert pool.checkedout() == 0
    assert [a for a in await actions(app) if a.endswith("tested")] == [
        "notification_channel.tested"
    ]


async def test_an_email_channel_sends_through_a_real_smtp_server(app: FastAPI) -> None:
    with smtp_server(login=("alerts", "mail-pass-123")) as mailbox:
        async with person(app, "ann@example.com", "admin") as (admin, csrf):
            form = {
                "kind": "email",
                "name": "",
                "smtp_host": "127.0.0.1",
                "smtp_port": str(mailbox.port),
                "security": "none",
                "username": "alerts",
                "password": "mail-pass-123",
                "from_address": "watchpost@example.com",
                "to": "ops@example.com, cto@example.com",
            }
            assert (
                await admin.post("/channels/new", data={"csrf": csrf, **form})
            ).status_code == 303
            [row] = await rows(app)
            edit = (await admin.get(f"/channels/{row.id}/edit")).text
            tested = await admin.post(f"/channels/{row.id}/test", data={"csrf": csrf})
    assert row.name == "E-mail" and row.service == "mailto"
    assert "mail-pass-123" not in edit and 'value="ops@example.com, cto@example.com"' in edit
    assert 'value="alerts"' in edit and f'value="{mailbox.port}"' in edit
    assert "Test sent to E-mail" in tested.text, tested.text[-800:]
    assert mailbox.logins == [("alerts", "mail-pass-123")]
    # Apprise sends one message per recipient
    assert sorted(r for rs in mailbox.recipients for r in rs) == [
        "cto@example.com",
        "ops@example.com",
    ]
    assert "Test incident" in str(mailbox.messages[0]["Subject"])


async def test_errors_are_shown_beside_their_fields_and_nothing_is_written(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        bad_token = await admin.post(
            "/channels/new",
            data={"csrf": csrf, "kind": "telegram", "bot_token": "nope", "chat_id": "-1001"},
        )
        missing = await admin.post(
            "/channels/new", data={"csrf": csrf, "kind": "telegram", "bot_token": "", "chat_id": ""}
        )
        denied = await admin.post(
            "/channels/new", data={"csrf": csrf, **ntfy(80, server="http://169.254.169.254")}
        )
        topic = await admin.post("/channels/new", data={"csrf": csrf, **ntfy(80, topic="a b")})
        slack = await admin.post(
            "/channels/new",
            data={"csrf": csrf, "kind": "slack", "webhook": "https://discord.com/api/webhooks/1/x"},
        )
        other = await admin.post(
            "/channels/new", data={"csrf": csrf, "kind": "apprise", "url": "nonsense://x"}
        )
    for answer in (bad_token, missing, denied, topic, slack, other):
        assert answer.status_code == 422
        assert "There is a problem" in answer.text
    assert 'id="bot_token-error"' in bad_token.text and 'value="-1001"' in bad_token.text
    assert "Type it again" in bad_token.text and "nope" not in bad_token.text
    assert 'id="bot_token-error"' in missing.text and 'id="chat_id-error"' in missing.text
    assert 'id="server-error"' in denied.text and TOKEN not in denied.text
    assert 'id="topic-error"' in topic.text and 'value="a b"' in topic.text
    assert 'id="webhook-error"' in slack.text and "hooks.slack.com" in slack.text
    assert 'id="url-error"' in other.text
    assert await rows(app) == []
    assert await actions(app) == []


async def test_editing_keeps_a_secret_left_empty_and_removes_one_on_request(
    app: FastAPI,
) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        await admin.post("/channels/new", data={"csrf": csrf, **ntfy(8080)})
        [row] = await rows(app)
        path = f"/channels/{row.id}/edit"
        kept = await admin.post(
            path, data={"csrf": csrf, **ntfy(8080, topic="night", token="", name="Night")}
        )
        [after] = await rows(app)
        assert kept.status_code == 303 and after.name == "Night"
        assert "/night?" in url_of(app, after) and TOKEN in url_of(app, after)
        removed = await admin.post(
            path, data={"csrf": csrf, **ntfy(8080, topic="night", token="", token__clear="on")}
        )
        [cleared] = await rows(app)
        assert removed.status_code == 303 and TOKEN not in url_of(app, cleared)
        switched = await admin.post(
            path, data={"csrf": csrf, "kind": "telegram", "name": "Tg", "chat_id": "42"}
        )
        assert switched.status_code == 422 and 'id="bot_token-error"' in switched.text
        unnamed = await admin.post(path, data={"csrf": csrf, **ntfy(8080, name=" ")})
        assert unnamed.status_code == 422 and 'id="name-error"' in unnamed.text
    assert await actions(app) == [
        "notification_channel.created",
        "notification_channel.updated",
        "notification_channel.updated",
    ]


async def test_a_channel_made_through_the_api_is_edited_as_any_apprise_url(
    app: FastAPI, api: Api
) -> None:
    secret_url = "json://bot:pa55word@hooks.example.com/alerts"
    made = data(await api.post(CHANNELS, {"url": secret_url, "name": "Hook"}), 201)
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        edit = await admin.get(f"/channels/{made['id']}/edit")
        listed = await admin.get("/channels")
        saved = await admin.post(
            f"/channels/{made['id']}/edit",
            data={"csrf": csrf, "kind": "apprise", "name": "Renamed", "url": ""},
        )
    assert "pa55word" not in edit.text + listed.text and "Apprise (json)" in listed.text
    assert "Any Apprise URL" in edit.text and "Stored, not shown" in edit.text
    assert saved.status_code == 303
    [row] = await rows(app)
    assert row.name == "Renamed" and url_of(app, row) == secret_url


async def test_deleting_asks_first_then_deletes_with_an_audit_entry(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        await admin.post("/channels/new", data={"csrf": csrf, **ntfy(8080)})
        [row] = await rows(app)
        asked = await admin.post(f"/channels/{row.id}/delete", data={"csrf": csrf})
        assert asked.status_code == 200 and "Delete the channel Phones?" in asked.text
        assert len(await rows(app)) == 1
        done = await admin.post(f"/channels/{row.id}/delete", data={"csrf": csrf, "confirm": "yes"})
        assert done.status_code == 303 and done.headers["location"] == "/channels?done=deleted"
    assert await rows(app) == []
    assert await actions(app) == ["notification_channel.created", "notification_channel.deleted"]


async def test_roles_below_the_one_needed_get_403_and_nothing_changes(app: FastAPI) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, csrf):
        await admin.post("/channels/new", data={"csrf": csrf, **ntfy(9)})
    [row] = await rows(app)
    before = (row.name, row.url_encrypted)
    async with person(app, "rita@example.com", "responder") as (responder, csrf):
        listed = await responder.get("/channels")
        assert listed.status_code == 200 and "Send test" in listed.text
        assert "/edit" not in listed.text and "New channel" not in listed.text
        answers = [
            await responder.get("/channels/new"),
            await responder.get(f"/channels/{row.id}/edit"),
            await responder.post("/channels/new", data={"csrf": csrf, **ntfy(9)}),
            await responder.post(
                f"/channels/{row.id}/edit", data={"csrf": csrf, **ntfy(9, name="X")}
            ),
            await responder.post(
                f"/channels/{row.id}/delete", data={"csrf": csrf, "confirm": "yes"}
            ),
        ]
    assert [a.status_code for a in answers] == [403] * 5
    async with person(app, "vic@example.com", "viewer") as (viewer_, csrf):
        assert "Send test" not in (await viewer_.get("/channels")).text
        test = await viewer_.post(f"/channels/{row.id}/test", data={"csrf": csrf})
        forged = await viewer_.post("/channels/new", data={"csrf": "x" * 40, **ntfy(9)})
    assert test.status_code == 403 and forged.status_code == 403
    [after] = await rows(app)
    assert (after.name, after.url_encrypted) == before
    assert await actions(app) == ["notification_channel.created"]


async def test_another_teams_channel_is_a_404(app: FastAPI, other_api: Api) -> None:
    theirs = data(await other_api.post(CHANNELS, {"url": "json://127.0.0.1:9/x"}), 201)
    path = f"/channels/{theirs['id']}"
    async with person(app, "ann@example.com", "owner") as (admin, csrf):
        listed = await admin.get("/channels")
        answers = [
            await admin.get(f"{path}/edit"),
            await admin.post(f"{path}/edit", data={"csrf": csrf, **ntfy(9)}),
            await admin.post(f"{path}/delete", data={"csrf": csrf, "confirm": "yes"}),
            await admin.post(f"{path}/test", data={"csrf": csrf}),
            await admin.get("/channels/nonsense/edit"),
        ]
    assert [a.status_code for a in answers] == [404] * 5
    assert "json" not in listed.text.split("<main", 1)[1].split("</main>")[0].lower()
    [row] = await rows(app)
    assert row.name == "json"
    assert await actions(app) == []


async def test_the_list_is_paged(app: FastAPI, api: Api) -> None:
    for number in range(3):
        await api.post(
            CHANNELS, {"url": f"json://hooks.example.com/{number}", "name": f"C{number}"}
        )
    async with person(app, "ann@example.com", "viewer") as (viewer_, _):
        first = await viewer_.get("/channels?per_page=2")
        second = await viewer_.get("/channels?per_page=2&page=2")
        past = await viewer_.get("/channels?per_page=2&page=9")
    assert "C0" in first.text and "C1" in first.text and "C2" not in first.text
    assert 'rel="next"' in first.text and "C2" in second.text and 'rel="prev"' in second.text
    assert "There is nothing on this page" in past.text
