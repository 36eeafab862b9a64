"""Requests are signed as Standard Webhooks says, with the key shown once; rotation signs
with both keys for 24 hours."""

from __future__ import annotations

from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.delivery import WEBHOOKS, advance, create_webhook, deliverer_of, receiver
from tests.factories.incidents import create_reported_incident
from watchpost.webhooks import signing


def _verifies(secret: str, request: object) -> bool:
    headers = request.headers  # type: ignore[attr-defined]
    return signing.verify(
        secret,
        headers["webhook-id"],
        int(headers["webhook-timestamp"]),
        request.body,  # type: ignore[attr-defined]
        headers["webhook-signature"],
    )


async def test_every_request_is_signed_with_the_key_of_the_create_response(
    app: FastAPI, api: Api
) -> None:
    async with receiver() as hook:
        webhook = await create_webhook(api, hook.url())
        secret = webhook["attributes"]["signing_secret"]
        assert secret.startswith("whsec_")
        await create_reported_incident(api)
        await deliverer_of(app).tick()
        [request] = hook.at("/hook")
    assert request.headers["webhook-id"].startswith("msg_")
    assert int(request.headers["webhook-timestamp"]) == int(app.state.ctx.clock.now().timestamp())
    assert request.headers["webhook-signature"].startswith("v1,")
    assert _verifies(secret, request)
    assert not _verifies(signing.new_secret(), request)
    # The key is never shown again, and never stored in the clear.
    shown = data(await api.get(f"{WEBHOOKS}/{webhook['id']}"))
    assert "signing_secret" not in shown["attributes"]
    listed = (await api.get(WEBHOOKS)).json()["data"]
    assert all("signing_secret" not in item["attributes"] for item in listed)


async def test_a_rotated_key_signs_beside_the_old_one_for_24_hours(app: FastAPI, api: Api) -> None:
    async with receiver() as hook:
        webhook = await create_webhook(api, hook.url())
        old = webhook["attributes"]["signing_secret"]
        rotated = data(await api.post(f"{WEBHOOKS}/{webhook['id']}/rotate-secret"))
        new = rotated["attributes"]["signing_secret"]
        assert new.startswith("whsec_") and new != old
        await create_reported_incident(api)
        await deliverer_of(app).tick()
        advance(app, 24 * 3600 + 1)
        await create_reported_incident(api)
        await deliverer_of(app).tick()
        first, second = hook.at("/hook")
    assert len(first.headers["webhook-signature"].split()) == 2
    assert _verifies(new, first) and _verifies(old, first)
    assert len(second.headers["webhook-signature"].split()) == 1
    assert _verifies(new, second) and not _verifies(old, second)


async def test_rotating_another_teams_webhook_is_404(api: Api, other_api: Api) -> None:
    webhook = await create_webhook(api, "https://hooks.example.com/x")
    assert (await other_api.post(f"{WEBHOOKS}/{webhook['id']}/rotate-secret")).status_code == 404
    assert (
        await api.post(f"{WEBHOOKS}/{webhook['id']}/rotate-secret", {"x": 1})
    ).status_code == 422


def test_the_signature_is_that_of_the_specification() -> None:
    """The example of the Standard Webhooks specification's reference libraries."""
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"test": 2432232314}'
    expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    assert signing.signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body) == expected
