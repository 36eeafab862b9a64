"""The ping URL follows WATCHPOST_PUBLIC_URL when it is set (the request otherwise)."""

from __future__ import annotations

import pytest

from tests.factories.api import Api, data
from watchpost.settings import Settings

URL = "/api/v2/heartbeats"
PUBLIC = "https://status.example.com:8443/"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"public_url": PUBLIC})


async def test_url_uses_the_public_url(api: Api) -> None:
    created = data(await api.post(URL, {"name": "job"}), 201)
    url = created["attributes"]["url"]
    assert url.startswith("https://status.example.com:8443/api/v1/heartbeat/")
    token = url.rsplit("/", 1)[1]
    assert len(token) >= 22
    listed = (await api.client.get(URL, headers={**api.headers, "Host": "other.example"})).json()[
        "data"
    ]
    assert listed[0]["attributes"]["url"] == url
