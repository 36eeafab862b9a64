"""Incident comments (the hosted API's /incidents/{id}/comments) and reopening an incident:
the rows, their timeline entries, and the events webhooks and people get for them."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.factories.api import Api, data, errors
from tests.factories.delivery import (
    configure,
    create_member,
    create_webhook,
    deliverer_of,
    receiver,
    smtp_server,
)
from tests.factories.incidents import create_reported_incident
from tests.factories.monitors import create_monitor
from watchpost.incidents import comments

INCIDENTS = "/api/v2/incidents"


async def _timeline(api: Api, incident: dict[str, Any]) -> list[tuple[str, str]]:
    body = (await api.get(f"{INCIDENTS}/{incident['id']}/timeline")).json()
    return [(item["attributes"]["kind"], item["attributes"]["text"]) for item in body["data"]]


async def test_comments_are_written_read_edited_and_deleted(api: Api) -> None:
    incident = await create_reported_incident(api, email=False)
    path = f"{INCIDENTS}/{incident['id']}/comments"
    created = data(await api.post(path, {"content": "Looking into it"}), 201)
    assert created["type"] == "incident_comment"
    attributes = created["attributes"]
    assert attributes["id"] == int(created["id"]) and attributes["content"] == "Looking into it"
    assert attributes["user_id"] is None and attributes["user_email"] is None
    assert attributes["created_at"] == attributes["updated_at"]
    second = data(await api.post(path, {"content": "**Fixed** the pool size"}), 201)
    listed = (await api.get(path)).json()
    assert [c["id"] for c in listed["data"]] == [created["id"], second["id"]]
    assert listed["pagination"]["next"] is None
    one = f"{path}/{created['id']}"
    assert data(await api.get(one)) == created
    edited = data(await api.patch(one, {"content": "Looking into it (db)"}))
    assert edited["attributes"]["content"] == "Looking into it (db)"
    assert (await api.delete(one)).status_code == 204
    assert (await api.get(one)).status_code == 404
    assert [c["id"] for c in (await api.get(path)).json()["data"]] == [second["id"]]
    # The timeline keeps what was said, edits and deletions aside.
    assert await _timeline(api, incident) == [
        ("started", "Customers report timeouts"),
        ("comment", "Looking into it"),
        ("comment", "**Fixed** the pool size"),
    ]


async def test_bad_comments_are_refused_and_change_nothing(api: Api) -> None:
    incident = await create_reported_incident(api, email=False)
    path = f"{INCIDENTS}/{incident['id']}/comments"
    for body in ({}, {"content": "   "}, {"content": 5}, {"content": "x", "author": "me"}):
        assert (await api.post(path, body)).status_code == 422, body
    assert (await api.post(path, {"content": "x" * (comments.MAX_CONTENT + 1)})).status_code == 422
    assert (await api.get(path)).json()["data"] == []
    assert (await api.post(f"{INCIDENTS}/999/comments", {"content": "x"})).status_code == 404
    created = data(await api.post(path, {"content": "ok"}), 201)
    other = await create_reported_incident(api, email=False, name="Other")
    wrong = f"{INCIDENTS}/{other['id']}/comments/{created['id']}"
    assert (await api.get(wrong)).status_code == 404  # not that incident's comment
    _, fields = errors(await api.patch(f"{path}/{created['id']}", {"content": None}))
    assert fields == ["content"]


async def test_an_incident_holds_a_bounded_number_of_comments(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(comments, "MAX_COMMENTS", 2)
    incident = await create_reported_incident(api, email=False)
    path = f"{INCIDENTS}/{incident['id']}/comments"
    for text in ("one", "two"):
        data(await api.post(path, {"content": text}), 201)
    response = await api.post(path, {"content": "three"})
    assert response.status_code == 422 and "at most 2 comments" in response.text
    assert len((await api.get(path)).json()["data"]) == 2


async def test_comments_sent_at_once_stay_within_the_bound(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each create counts the incident's comments and adds one: without the incident locked,
    # requests in flight together (PostgreSQL) would all count the same and all pass
    monkeypatch.setattr(comments, "MAX_COMMENTS", 2)
    incident = await create_reported_incident(api, email=False)
    path = f"{INCIDENTS}/{incident['id']}/comments"
    sent = [api.post(path, {"content": f"comment {n}"}) for n in range(6)]
    statuses = sorted(response.status_code for response in await asyncio.gather(*sent))
    assert statuses == [201, 201, 422, 422, 422, 422]
    assert len((await api.get(path)).json()["data"]) == 2


async def test_a_comment_reaches_the_webhooks_that_want_comments(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        only = {f"on_incident_{flag}": False for flag in ("started", "acknowledged", "resolved")}
        await create_webhook(api, hook.url("/comments"), **only, on_incident_comment=True)
        await create_webhook(api, hook.url("/others"))
        incident = await create_reported_incident(api, email=False)
        await api.post(f"{INCIDENTS}/{incident['id']}/comments", {"content": "Rolling back"})
        worker = deliverer_of(app)
        await worker.tick()
        await worker.tick()
        [told] = hook.at("/comments")
        body = told.json()
        assert body["event"] == "comment" and body["data"]["id"] == incident["id"]
        assert body["comment"]["content"] == "Rolling back"
        assert body["comment"]["author"] == "acme"
        assert [r.json()["event"] for r in hook.at("/others")] == ["started"]


async def test_a_resolved_incident_can_be_reopened(app: FastAPI, api: Api) -> None:
    await create_member(app, "acme", "ann@example.com")
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        async with receiver() as hook:
            only = {
                f"on_incident_{flag}": False for flag in ("started", "acknowledged", "resolved")
            }
            await create_webhook(api, hook.url(), **only, on_incident_reopened=True)
            incident = await create_reported_incident(api)
            path = f"{INCIDENTS}/{incident['id']}"
            response = await api.post(f"{path}/reopen", {})
            assert response.status_code == 409 and "not resolved" in response.text
            await api.post(f"{path}/acknowledge", {"acknowledged_by": "ann@example.com"})
            await api.post(f"{path}/resolve", {})
            reopened = data(await api.post(f"{path}/reopen", {"reopened_by": "bob@example.com"}))
            attributes = reopened["attributes"]
            assert attributes["status"] == "started"
            assert attributes["resolved_at"] is None and attributes["acknowledged_at"] is None
            assert (await _timeline(api, incident))[-1] == (
                "reopened",
                "Reopened by bob@example.com",
            )
            worker = deliverer_of(app)
            for _ in range(3):
                await worker.tick()
            assert [r.json()["event"] for r in hook.at("/hook")] == ["reopened"]
            subjects = [m["Subject"].split(":")[0] for m in mailbox.messages]
            assert sorted(subjects) == ["Down", "Down again", "Resolved"]  # sent concurrently
            # and it can be resolved again
            assert data(await api.post(f"{path}/resolve", {}))["attributes"]["status"] == "resolved"


async def test_an_incident_is_not_reopened_beside_another_open_one(api: Api) -> None:
    monitor = await create_monitor(api)
    first = await create_reported_incident(api, email=False, monitor_id=int(monitor["id"]))
    await api.post(f"{INCIDENTS}/{first['id']}/resolve", {})
    await create_reported_incident(api, email=False, monitor_id=int(monitor["id"]))
    response = await api.post(f"{INCIDENTS}/{first['id']}/reopen", {})
    assert response.status_code == 409 and "another open incident" in response.text
    assert data(await api.get(f"{INCIDENTS}/{first['id']}"))["attributes"]["status"] == "resolved"
    _, fields = errors(await api.post(f"{INCIDENTS}/{first['id']}/reopen", {"by": "x"}))
    assert fields == ["by"]


async def test_an_incoming_webhooks_incident_is_not_reopened_beside_its_open_one(
    api: Api, client: httpx.AsyncClient
) -> None:
    unused = {f"{kind}_rule_type": "unused" for kind in ("started", "acknowledged", "resolved")}
    made = data(await api.post("/api/v2/incoming-webhooks", unused), 201)
    url = made["attributes"]["url"].removeprefix("http://testserver")
    assert (await client.get(url)).json() == {"result": "started"}
    (first,) = (await api.get(INCIDENTS)).json()["data"]
    await api.post(f"{INCIDENTS}/{first['id']}/resolve", {})
    assert (await client.get(url)).json() == {"result": "started"}  # a new one
    response = await api.post(f"{INCIDENTS}/{first['id']}/reopen", {})
    assert response.status_code == 409, response.text
    assert "incoming webhook has another open incident" in response.text
    assert data(await api.get(f"{INCIDENTS}/{first['id']}"))["attributes"]["status"] == "resolved"
