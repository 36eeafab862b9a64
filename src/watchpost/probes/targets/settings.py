"""What a collector target probe gets.

TargetSettings holds a target's connection fields with its credentials already decrypted,
in memory only (never in repr, never logged).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

TargetKind = Literal[
    "postgres",
    "mysql",
    "redis",
    "mongodb",
    "memcached",
    "elasticsearch",
    "nginx",
    "apache",
    "kafka",
    "prometheus",
]
"""Every kind of collector target: each has its probe, `watchpost.probes.targets.<kind>`
(registry.py), and its field rules (collectors/target_kinds.py)."""


@dataclass(frozen=True)
class TargetSettings:
    kind: str
    host: str
    port: int | None = None
    service: str | None = None
    listen_ip: str | None = None
    endpoint: str | None = None
    scheme: str | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)
    ssl_mode: str | None = None
    tls: str | None = None

    @property
    def secrets(self) -> tuple[str, ...]:
        """The credentials, so messages from servers and libraries can be scrubbed of them."""
        return tuple(value for value in (self.password, self.api_key) if value)
