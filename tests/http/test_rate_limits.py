"""Rate limits: per API token on the API, per client address on the heartbeat ping URLs.

Each test sets a small limit of its own (the default is far above what any test sends) and
moves the FrozenClock instead of waiting for the window to pass.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from tests.conftest import make_api
from tests.factories.api import Api
from tests.factories.heartbeats import PING, create_heartbeat
from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.ratelimit import RateLimiter, RateLimits
from watchpost.settings import Settings

MONITORS = "/api/v2/monitors"


async def limit(app: FastAPI, settings: Settings, clock: FrozenClock, **per_minute: int) -> None:
    """Rebuild the app's context from the test's settings with these limit settings, as a
    server started with them would be."""
    old: AppContext = app.state.ctx
    app.state.ctx = AppContext.build(settings.model_copy(update=per_minute), clock)
    await old.db.dispose()


def assert_limited(response: httpx.Response, retry_after: int, per: str) -> None:
    assert response.status_code == 429, response.text
    assert response.headers["retry-after"] == str(retry_after)
    assert response.headers["content-type"] == "application/json"
    message = response.json()["errors"]
    assert isinstance(message, str)
    assert "Rate limit exceeded" in message and per in message, message


@pytest.fixture
async def address_client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """A client calling from another address than the `client` fixture's 127.0.0.1."""
    transport = httpx.ASGITransport(app=app, client=("192.0.2.7", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


# ------------------------------------------------------------------------ per token


async def test_a_token_over_its_limit_gets_429_with_retry_after(
    app: FastAPI, settings: Settings, clock: FrozenClock, client: httpx.AsyncClient
) -> None:
    await limit(app, settings, clock, rate_limit_per_minute=3)
    api = await make_api(app, client, "acme")
    assert (await api.get(MONITORS)).status_code == 200
    assert (await api.post(MONITORS, {"url": "https://example.com"})).status_code == 201
    assert (await api.get(MONITORS)).status_code == 200
    # 3 a minute: the next request is allowed once a third of the minute has passed.
    assert_limited(await api.get(MONITORS), 20, "3 requests a minute per API token")
    refused = await api.post(MONITORS, {"url": "https://example.org"})
    assert_limited(refused, 20, "per API token")
    listed = await make_api(app, client, "acme")  # another token of the team sees one monitor
    assert len((await listed.get(MONITORS)).json()["data"]) == 1


async def test_one_tokens_traffic_never_limits_another(
    app: FastAPI, settings: Settings, clock: FrozenClock, client: httpx.AsyncClient
) -> None:
    await limit(app, settings, clock, rate_limit_per_minute=5)
    first = await make_api(app, client, "acme")
    same_team = await make_api(app, client, "acme")
    other_team = await make_api(app, client, "globex")
    for _ in range(5):
        assert (await first.get(MONITORS)).status_code == 200
    for _ in range(3):
        assert (await first.get(MONITORS)).status_code == 429
    # The limit is the token's: the team's other token and another team answer at once.
    for api in (same_team, other_team):
        for _ in range(5):
            assert (await api.get(MONITORS)).status_code == 200
        assert (await api.get(MONITORS)).status_code == 429


async def test_the_window_recovers_as_time_passes(
    app: FastAPI, settings: Settings, clock: FrozenClock, client: httpx.AsyncClient
) -> None:
    await limit(app, settings, clock, rate_limit_per_minute=3)
    api = await make_api(app, client, "acme")
    for _ in range(3):
        assert (await api.get(MONITORS)).status_code == 200
    assert_limited(await api.get(MONITORS), 20, "per API token")
    clock.advance(19.5)
    # Refused requests are not counted: the wait only shrinks.
    assert_limited(await api.get(MONITORS), 1, "per API token")
    clock.advance(0.5)
    assert (await api.get(MONITORS)).status_code == 200  # one request back every 20 s
    assert (await api.get(MONITORS)).status_code == 429
    clock.advance(60)  # a quiet minute fills the bucket again, and no more than that
    for _ in range(3):
        assert (await api.get(MONITORS)).status_code == 200
    assert (await api.get(MONITORS)).status_code == 429


async def test_zero_disables_the_token_limit(
    app: FastAPI, settings: Settings, clock: FrozenClock, client: httpx.AsyncClient
) -> None:
    await limit(app, settings, clock, rate_limit_per_minute=0)
    assert app.state.ctx.limits.tokens is None
    api = await make_api(app, client, "acme")
    for _ in range(30):
        assert (await api.get(MONITORS)).status_code == 200


async def test_bad_tokens_are_not_counted_against_a_valid_one(
    app: FastAPI, settings: Settings, clock: FrozenClock, client: httpx.AsyncClient
) -> None:
    await limit(app, settings, clock, rate_limit_per_minute=2)
    api = await make_api(app, client, "acme")
    for _ in range(5):
        bad = await client.get(MONITORS, headers={"Authorization": f"Bearer {api.token}x"})
        assert bad.status_code == 401
    assert (await api.get(MONITORS)).status_code == 200
    assert (await api.get(MONITORS)).status_code == 200
    assert (await api.get(MONITORS)).status_code == 429


# ------------------------------------------------------------- per address (pings)


async def test_pings_are_limited_per_client_address(
    app: FastAPI,
    settings: Settings,
    clock: FrozenClock,
    client: httpx.AsyncClient,
    address_client: httpx.AsyncClient,
) -> None:
    await limit(app, settings, clock, ping_rate_limit_per_minute=4, rate_limit_per_minute=100)
    api = await make_api(app, client, "acme")
    made = await create_heartbeat(api)
    assert (await client.get(made.url)).status_code == 200
    assert (await client.post(f"{made.url}/fail")).status_code == 200
    assert (await client.get(f"{made.url}/0")).status_code == 200
    # Unknown tokens count too: guessing ping URLs is what the limit slows down.
    assert (await client.get(f"{PING}/not-a-token")).status_code == 404
    assert_limited(await client.get(made.url), 15, "4 requests a minute from one address")
    head = await client.head(made.url)
    assert (head.status_code, head.headers["retry-after"]) == (429, "15")
    # Another address pings at once, and the API token's own limit is separate.
    assert (await address_client.get(made.url)).status_code == 200
    assert (await api.get("/api/v2/heartbeats")).status_code == 200
    clock.advance(15)
    assert (await client.get(made.url)).status_code == 200
    assert (await client.get(made.url)).status_code == 429


async def test_zero_disables_the_ping_limit(
    app: FastAPI, settings: Settings, clock: FrozenClock, client: httpx.AsyncClient
) -> None:
    await limit(app, settings, clock, ping_rate_limit_per_minute=0)
    assert app.state.ctx.limits.addresses is None
    api = await make_api(app, client, "acme")
    made = await create_heartbeat(api)
    for _ in range(30):
        assert (await client.get(made.url)).status_code == 200


# ------------------------------------------------------------------------- settings


def test_defaults_are_generous_and_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    defaults = Settings()
    assert defaults.rate_limit_per_minute == 1200
    assert defaults.ping_rate_limit_per_minute == 6000
    monkeypatch.setenv("WATCHPOST_RATE_LIMIT_PER_MINUTE", "7")
    monkeypatch.setenv("WATCHPOST_PING_RATE_LIMIT_PER_MINUTE", "0")
    limits = RateLimits.per_minute(
        Settings().rate_limit_per_minute, Settings().ping_rate_limit_per_minute
    )
    assert limits.tokens is not None and limits.tokens.per_minute == 7
    assert limits.addresses is None
    monkeypatch.setenv("WATCHPOST_RATE_LIMIT_PER_MINUTE", "-1")
    with pytest.raises(ValidationError):
        Settings()


async def test_the_default_limit_is_on(api: Api, app: FastAPI) -> None:
    limits: RateLimits = app.state.ctx.limits
    assert limits.tokens is not None and limits.tokens.per_minute == 1200
    assert limits.addresses is not None and limits.addresses.per_minute == 6000
    assert (await api.get(MONITORS)).status_code == 200
    assert len(limits.tokens) == 1  # the request was counted, in the token's own bucket


# ------------------------------------------------------------------ the limiter itself


def test_a_burst_of_the_whole_minute_then_one_per_interval() -> None:
    limiter = RateLimiter(600)
    assert all(limiter.acquire("k", 1000.0) == 0.0 for _ in range(600))
    assert limiter.acquire("k", 1000.0) == pytest.approx(0.1)
    assert limiter.acquire("k", 1000.1) == 0.0
    assert limiter.acquire("k", 1000.1) > 0


def test_idle_buckets_expire_and_the_number_of_keys_is_bounded() -> None:
    limiter = RateLimiter(10, max_keys=50)
    for key in range(40):
        limiter.acquire(key, 0.0)
    assert len(limiter) == 40
    # A minute later every one of them is full again: new keys push them out, two at a time.
    for key in range(100, 120):
        limiter.acquire(key, 61.0)
    assert len(limiter) == 20
    # Past max_keys the least recently used bucket goes, full or not.
    for key in range(1000, 1100):
        limiter.acquire(key, 62.0)
    assert len(limiter) == 50


def test_a_clock_that_goes_back_does_not_lock_a_key_out() -> None:
    limiter = RateLimiter(2)
    assert limiter.acquire("k", 10_000.0) == 0.0
    assert limiter.acquire("k", 10_000.0) == 0.0
    assert limiter.acquire("k", 10_000.0) > 0
    assert limiter.acquire("k", 5_000.0) == 0.0  # the clock was set back an hour


def test_a_limit_finer_than_the_clock_never_fails() -> None:
    # 10^9 a minute is an interval of 60 ns, below a float's step at today's timestamps: a
    # new key's bucket is full again at once, and it must not be expired out of an empty map.
    limiter = RateLimiter(10**9)
    now = 1_795_363_085.0
    assert all(limiter.acquire(key, now) == 0.0 for key in range(5))
    assert len(limiter) >= 1
