"""The interface every probe implements.

A probe gets everything it needs in a frozen settings object (credentials already
decrypted, in memory only), does one check against the real server with a deadline, and
returns a ProbeResult. It never raises for a failed check: a refused connection, a wrong
password or a timeout is a result with ok=False and a human-readable error. It never logs
or returns a credential.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from watchpost.masking import mask_urls

S_contra = TypeVar("S_contra", contravariant=True)


@dataclass(frozen=True)
class ProbeResult:
    ok: bool
    """The check passed."""
    latency_ms: float
    """Wall time of the check, connection included."""
    error: str | None = None
    """Why it failed, for people (shown through the API and in incidents); None when ok."""
    metrics: Mapping[str, float] = field(default_factory=dict)
    """Useful numbers the check read (connections, ops, memory, samples …), by name."""
    details: Mapping[str, str] = field(default_factory=dict)
    """Small facts worth keeping (server version, status code …)."""

    def __post_init__(self) -> None:
        # Whatever wrote it, an error text shows no URL's password or query values.
        if self.error is not None:
            object.__setattr__(self, "error", mask_urls(self.error))


class Probe(Protocol[S_contra]):
    async def __call__(self, settings: S_contra, *, timeout: float) -> ProbeResult: ...


class Stopwatch:
    """Milliseconds since creation, from a monotonic clock."""

    def __init__(self) -> None:
        self._start = time.perf_counter()

    def ms(self) -> float:
        return (time.perf_counter() - self._start) * 1000.0


def failure(watch: Stopwatch, error: str, **details: str) -> ProbeResult:
    return ProbeResult(ok=False, latency_ms=watch.ms(), error=error, details=details)
