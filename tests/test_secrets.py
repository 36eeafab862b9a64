"""Passwords and API keys are write-only, stored encrypted, and never logged."""

from __future__ import annotations

import logging

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import TEST_API_KEY, TEST_PASSWORD, Api, data
from tests.factories.objects import create_collector, target_body
from watchpost.collectors.models import CollectorTarget
from watchpost.crypto import SecretBox

NEW_PASSWORD = TEST_PASSWORD + "-new"
NEW_API_KEY = TEST_API_KEY + "-new"


async def test_secrets_never_come_back_and_are_encrypted(
    api: Api, app: FastAPI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="sqlalchemy.engine")
    engine_logger = logging.getLogger("sqlalchemy.engine")
    previous = engine_logger.level
    engine_logger.setLevel(logging.INFO)
    try:
        owner = await create_collector(api)
        base = f"/api/v1/collectors/{owner['id']}/targets"
        body = target_body("elasticsearch", password=TEST_PASSWORD, api_key=TEST_API_KEY)
        responses = [await api.post(base, body)]
        url = f"{base}/{data(responses[0], 201)['id']}"
        responses += [await api.get(url), await api.get(base)]
        responses.append(await api.patch(url, {"password": NEW_PASSWORD, "api_key": NEW_API_KEY}))
        responses += [await api.get(url), await api.get(base)]
    finally:
        engine_logger.setLevel(previous)
    secrets = (TEST_PASSWORD, TEST_API_KEY, NEW_PASSWORD, NEW_API_KEY)
    for response in responses:
        assert response.status_code in (200, 201)
        assert not any(secret in response.text for secret in secrets)
        assert "password" not in response.text and "api_key" not in response.text
    assert any("INSERT INTO collector_targets" in r.getMessage() for r in caplog.records)
    for record in caplog.records:
        line = record.getMessage() + repr(record.args)
        assert not any(secret in line for secret in secrets), record.getMessage()

    async with app.state.ctx.db.read_sessions() as session:
        row = await session.scalar(
            select(CollectorTarget).where(CollectorTarget.id == int(url.rsplit("/", 1)[1]))
        )
    assert row is not None and row.password_encrypted and row.api_key_encrypted
    assert NEW_PASSWORD not in row.password_encrypted and NEW_API_KEY not in row.api_key_encrypted
    box = app.state.ctx.box
    assert box.decrypt(row.password_encrypted) == NEW_PASSWORD
    assert box.decrypt(row.api_key_encrypted) == NEW_API_KEY


async def test_secrets_can_be_removed(api: Api, app: FastAPI) -> None:
    owner = await create_collector(api)
    created = data(
        await api.post(
            f"/api/v1/collectors/{owner['id']}/targets",
            target_body("postgres", password=TEST_PASSWORD),
        ),
        201,
    )
    url = f"/api/v1/collectors/{owner['id']}/targets/{created['id']}"
    data(await api.patch(url, {"password": None}))
    async with app.state.ctx.db.read_sessions() as session:
        row = await session.get(CollectorTarget, int(created["id"]))
    assert row is not None and row.password_encrypted is None


async def test_error_messages_do_not_echo_secrets(api: Api) -> None:
    owner = await create_collector(api)
    response = await api.post(
        f"/api/v1/collectors/{owner['id']}/targets",
        target_body("nginx", password=TEST_PASSWORD, api_key=TEST_API_KEY),
    )
    assert response.status_code == 422
    assert TEST_PASSWORD not in response.text and TEST_API_KEY not in response.text


def test_secret_box_round_trips_and_refuses_other_keys_and_formats() -> None:
    box = SecretBox("one key")
    sealed = box.encrypt(TEST_PASSWORD)
    assert sealed.startswith("v1.") and TEST_PASSWORD not in sealed
    assert box.encrypt(TEST_PASSWORD) != sealed  # a fresh nonce every time
    assert box.decrypt(sealed) == TEST_PASSWORD
    tampered = sealed[:-4] + ("AAAA" if not sealed.endswith("AAAA") else "BBBB")
    for bad in (sealed, tampered, "v2." + sealed[3:], sealed[3:], "v1.!!"):
        other = SecretBox("another key") if bad == sealed else box
        with pytest.raises(ValueError, match="cannot be decrypted") as caught:
            other.decrypt(bad)
        assert TEST_PASSWORD not in str(caught.value)
