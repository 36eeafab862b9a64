"""Custom webhook templates: their own row, linked from the webhook, changed through PATCH;
auth_password is write-only."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from tests.factories.api import TEST_PASSWORD, Api, data, errors
from watchpost.webhooks.models import CustomWebhookTemplate, OutgoingWebhook
from watchpost.webhooks.triggers import HTTP_METHODS, METHODS_WITHOUT_BODY, RESERVED_HEADERS

BASE = "/api/v2/outgoing-webhooks"
URL = "https://hooks.example.com/watchpost"
T = "custom_webhook_template_attributes"


async def create(api: Api, template: Any = None, **attributes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"url": URL, "trigger_type": "incident_change", **attributes}
    if template is not None:
        body[T] = template
    response = await api.post(BASE, body)
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    # As GET shows it: the signing key is only in the create response.
    assert result["data"]["attributes"].pop("signing_secret").startswith("whsec_")
    return result


def included(document: dict[str, Any]) -> dict[str, Any] | None:
    items = document["included"]
    assert len(items) <= 1
    return items[0]["attributes"] if items else None


def reference(document: dict[str, Any]) -> dict[str, str] | None:
    ref: dict[str, str] | None = document["data"]["relationships"]["custom_webhook_template"][
        "data"
    ]
    return ref


async def template_rows(app: FastAPI) -> list[CustomWebhookTemplate]:
    async with app.state.ctx.db.read_sessions() as session:
        return list((await session.scalars(select(CustomWebhookTemplate))).all())


async def test_empty_template_gets_the_defaults(api: Api) -> None:
    document = await create(api, {})
    assert included(document) == {
        "http_method": "post",
        "auth_username": None,
        "headers_template": [],
        "body_template": None,
    }


@pytest.mark.parametrize("method", HTTP_METHODS)
async def test_every_http_method_is_accepted(api: Api, method: str) -> None:
    document = await create(api, {"http_method": method})
    template = included(document)
    assert template is not None and template["http_method"] == method


@pytest.mark.parametrize("method", ["delete", "POST", "options", "", None, 1, ["get"], {"a": 1}])
async def test_bad_http_method_is_422(api: Api, method: object) -> None:
    template = {"http_method": method, "body_template": "x"}
    body = {"url": URL, "trigger_type": "monitor_change", T: template}
    messages, fields = errors(await api.post(BASE, body))
    assert fields == [T]
    assert any("http_method" in message for message in messages)


@pytest.mark.parametrize("method", sorted(METHODS_WITHOUT_BODY))
async def test_body_template_needs_a_method_with_a_body(api: Api, method: str) -> None:
    body = {
        "url": URL,
        "trigger_type": "monitor_change",
        T: {"http_method": method, "body_template": "{}"},
    }
    messages, fields = errors(await api.post(BASE, body))
    assert fields == [T]
    assert messages == [
        f"{T}.body_template cannot be used with http_method {method} (it sends no body)"
    ]


@pytest.mark.parametrize(
    "headers",
    [
        {"name": "X-A", "value": "b"},
        [{"name": "X-A"}],
        [{"value": "b"}],
        [{"name": "X-A", "value": "b", "extra": 1}],
        [{"name": "Bad Header", "value": "b"}],
        [{"name": "", "value": "b"}],
        [{"name": "X-A", "value": "b\r\nInjected: yes"}],
        [{"name": "X-A", "value": 5}],
        ["X-A: b"],
        *[[{"name": reserved.title(), "value": "b"}] for reserved in sorted(RESERVED_HEADERS)],
    ],
)
async def test_bad_headers_template_items_are_422(api: Api, headers: object) -> None:
    body = {"url": URL, "trigger_type": "monitor_change", T: {"headers_template": headers}}
    messages, fields = errors(await api.post(BASE, body))
    assert fields == [T]
    assert all(message.startswith(f"{T}.headers_template") for message in messages)


async def test_unknown_template_field_is_422(api: Api) -> None:
    body = {"url": URL, "trigger_type": "monitor_change", T: {"timeout": 5}}
    messages, fields = errors(await api.post(BASE, body))
    assert fields == [T]
    assert messages == [f"{T}.timeout is not a known attribute"]


async def test_template_must_be_an_object(api: Api) -> None:
    body = {"url": URL, "trigger_type": "monitor_change", T: "post"}
    _, fields = errors(await api.post(BASE, body))
    assert fields == [T]


async def test_template_is_its_own_row_linked_from_the_webhook(api: Api, app: FastAPI) -> None:
    document = await create(api, {"body_template": "hi"})
    ref = reference(document)
    assert ref is not None
    rows = await template_rows(app)
    assert [str(row.id) for row in rows] == [ref["id"]]
    assert rows[0].team_id == api.team_id
    async with app.state.ctx.db.read_sessions() as session:
        webhook = await session.get(OutgoingWebhook, int(document["data"]["id"]))
        assert webhook is not None and webhook.custom_webhook_template_id == rows[0].id


# ---------------------------------------------------------------- the write-only password


async def test_auth_password_is_stored_encrypted_and_never_returned(api: Api, app: FastAPI) -> None:
    document = await create(api, {"auth_username": "bot", "auth_password": TEST_PASSWORD})
    wid = document["data"]["id"]
    assert included(document) == {
        "http_method": "post",
        "auth_username": "bot",
        "headers_template": [],
        "body_template": None,
    }
    for response in (
        await api.get(f"{BASE}/{wid}"),
        await api.get(BASE),
        await api.patch(f"{BASE}/{wid}", {T: {"auth_username": "robot"}}),
    ):
        assert TEST_PASSWORD not in response.text
        assert "auth_password" not in response.text
    [row] = await template_rows(app)
    assert row.auth_password_encrypted is not None
    assert TEST_PASSWORD not in row.auth_password_encrypted
    assert app.state.ctx.box.decrypt(row.auth_password_encrypted) == TEST_PASSWORD


async def test_auth_password_can_be_replaced_and_cleared(api: Api, app: FastAPI) -> None:
    document = await create(api, {"auth_password": "first-" + TEST_PASSWORD})
    wid = document["data"]["id"]
    data(await api.patch(f"{BASE}/{wid}", {T: {"auth_password": TEST_PASSWORD}}))
    [row] = await template_rows(app)
    assert row.auth_password_encrypted is not None
    assert app.state.ctx.box.decrypt(row.auth_password_encrypted) == TEST_PASSWORD
    data(await api.patch(f"{BASE}/{wid}", {T: {"auth_password": None}}))
    [row] = await template_rows(app)
    assert row.auth_password_encrypted is None


async def test_a_bad_request_never_echoes_the_password(api: Api) -> None:
    body = {
        "url": "bad",
        "trigger_type": "monitor_change",
        T: {"auth_password": TEST_PASSWORD, "x": 1},
    }
    response = await api.post(BASE, body)
    assert response.status_code == 422
    assert TEST_PASSWORD not in response.text


# ------------------------------------------------------------------------ PATCH templates


async def test_patch_adds_a_template(api: Api) -> None:
    document = await create(api)
    wid = document["data"]["id"]
    assert reference(document) is None and document["included"] == []
    headers = [{"name": "X-Token", "value": "{{incident.id}}"}]
    response = await api.patch(f"{BASE}/{wid}", {T: {"headers_template": headers}})
    patched = response.json()
    ref = reference(patched)
    assert ref is not None and ref["type"] == "custom_webhook_template"
    assert included(patched) == {
        "http_method": "post",
        "auth_username": None,
        "headers_template": headers,
        "body_template": None,
    }
    assert patched["included"][0]["id"] == ref["id"]
    assert (await api.get(f"{BASE}/{wid}")).json() == patched


async def test_patch_changes_only_the_sent_template_fields(api: Api) -> None:
    document = await create(
        api,
        {
            "http_method": "put",
            "auth_username": "bot",
            "headers_template": [{"name": "X-A", "value": "1"}],
            "body_template": "old",
        },
    )
    wid = document["data"]["id"]
    ref = reference(document)
    patched = (
        await api.patch(
            f"{BASE}/{wid}",
            {T: {"body_template": "new", "headers_template": [], "auth_username": None}},
        )
    ).json()
    assert reference(patched) == ref  # same row, changed in place
    assert included(patched) == {
        "http_method": "put",
        "auth_username": None,
        "headers_template": [],
        "body_template": "new",
    }


async def test_patch_template_rules_apply_to_the_merged_template(api: Api) -> None:
    document = await create(api, {"body_template": "payload"})
    wid = document["data"]["id"]
    messages, fields = errors(await api.patch(f"{BASE}/{wid}", {T: {"http_method": "get"}}))
    assert fields == [T]
    assert "body_template cannot be used with http_method get" in messages[0]
    patched = (
        await api.patch(f"{BASE}/{wid}", {T: {"http_method": "get", "body_template": None}})
    ).json()
    template = included(patched)
    assert template is not None
    assert (template["http_method"], template["body_template"]) == ("get", None)


async def test_patch_null_http_method_is_422(api: Api) -> None:
    document = await create(api, {})
    _, fields = errors(
        await api.patch(f"{BASE}/{document['data']['id']}", {T: {"http_method": None}})
    )
    assert fields == [T]


async def test_patch_null_removes_the_template(api: Api, app: FastAPI) -> None:
    document = await create(api, {"auth_password": TEST_PASSWORD})
    wid = document["data"]["id"]
    patched = (await api.patch(f"{BASE}/{wid}", {T: None})).json()
    assert reference(patched) is None
    assert patched["included"] == []
    assert await template_rows(app) == []
    assert (await api.get(f"{BASE}/{wid}")).json() == patched


async def test_patch_without_the_template_field_keeps_it(api: Api) -> None:
    document = await create(api, {"body_template": "keep"})
    patched = (await api.patch(f"{BASE}/{document['data']['id']}", {"name": "x"})).json()
    assert patched["included"] == document["included"]


async def test_deleting_the_webhook_deletes_its_template(api: Api, app: FastAPI) -> None:
    keep = await create(api, {"body_template": "keep"})
    gone = await create(api, {"body_template": "gone"})
    assert (await api.delete(f"{BASE}/{gone['data']['id']}")).status_code == 204
    rows = await template_rows(app)
    keep_ref = reference(keep)
    assert keep_ref is not None
    assert [str(row.id) for row in rows] == [keep_ref["id"]]
    async with app.state.ctx.db.read_sessions() as session:
        assert await session.scalar(select(func.count()).select_from(OutgoingWebhook)) == 1


async def test_other_team_cannot_touch_a_template(api: Api, other_api: Api, app: FastAPI) -> None:
    document = await create(api, {"auth_username": "bot", "auth_password": TEST_PASSWORD})
    path = f"{BASE}/{document['data']['id']}"
    for body in ({T: None}, {T: {"auth_username": "evil"}}):
        assert (await other_api.patch(path, body)).status_code == 404
    assert (await other_api.delete(path)).status_code == 404
    assert (await api.get(path)).json() == document
    [row] = await template_rows(app)
    assert app.state.ctx.box.decrypt(row.auth_password_encrypted or "") == TEST_PASSWORD
