"""Fixtures of the probe tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from watchpost.probes.http import CLIENT


@pytest.fixture(autouse=True)
async def close_client() -> AsyncIterator[None]:
    """Each test has its own event loop, so the probes' shared HTTP session is closed with it."""
    yield
    await CLIENT.aclose()
