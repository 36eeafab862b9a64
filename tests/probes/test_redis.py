"""Redis probe against the machine's server (127.0.0.1:6379).

Credentials are tested with an ACL user created for the test and deleted after it.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator

import pytest
import redis.asyncio

from tests.factories.api import TEST_PASSWORD
from tests.factories.servers import (
    REDIS,
    SHORT_TIMEOUT,
    TIMEOUT,
    free_port,
    require_tcp,
    silent_server,
)
from watchpost.probes.targets.redis import probe
from watchpost.probes.targets.settings import TargetSettings


def target(**changes: object) -> TargetSettings:
    fields: dict[str, object] = {"kind": "redis", "host": REDIS[0], "port": REDIS[1]}
    return TargetSettings(**{**fields, **changes})  # type: ignore[arg-type]


@pytest.fixture
def redis_server() -> None:
    require_tcp("Redis", REDIS)


@pytest.fixture
async def acl_user(redis_server: None) -> AsyncIterator[str]:
    """An ACL user whose password is TEST_PASSWORD, deleted after the test."""
    name = f"wp_probe_{secrets.token_hex(4)}"
    async with redis.asyncio.Redis(host=REDIS[0], port=REDIS[1]) as admin:
        await admin.acl_setuser(
            name, enabled=True, passwords=["+" + TEST_PASSWORD], commands=["+ping", "+info"]
        )
        try:
            yield name
        finally:
            await admin.acl_deluser(name)


@pytest.mark.usefixtures("redis_server")
async def test_pings_and_reads_info() -> None:
    result = await probe(target(), timeout=TIMEOUT)
    assert result.ok, result.error
    assert result.metrics["connected_clients"] >= 1
    assert result.metrics["used_memory"] > 0
    assert "instantaneous_ops_per_sec" in result.metrics
    assert result.details["server_version"]


async def test_an_acl_user_with_the_right_password_passes(acl_user: str) -> None:
    result = await probe(target(username=acl_user, password=TEST_PASSWORD), timeout=TIMEOUT)
    assert result.ok, result.error


async def test_a_wrong_password_fails_without_echoing_it(acl_user: str) -> None:
    settings = target(username=acl_user, password="wrong-" + TEST_PASSWORD)
    result = await probe(settings, timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"authentication failed for user {acl_user} on 127.0.0.1:6379"


async def test_a_closed_port_is_refused() -> None:
    port = free_port()
    result = await probe(target(port=port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"connection refused by 127.0.0.1:{port} (nothing listens on that port?)"


async def test_a_silent_server_times_out() -> None:
    async with silent_server() as port:
        result = await probe(target(port=port), timeout=SHORT_TIMEOUT)
    assert not result.ok
    assert result.error == f"timed out after {SHORT_TIMEOUT:g} s waiting for 127.0.0.1:{port}"
