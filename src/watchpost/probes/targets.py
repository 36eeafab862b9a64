"""What a collector-target probe gets, and which probe checks each target kind.

TargetSettings holds a target's connection fields with its credentials already decrypted,
in memory only (never in repr, never logged). PROBES is the one table kind → probe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from watchpost.probes import (
    apache,
    elasticsearch,
    kafka,
    memcached,
    mongodb,
    mysql,
    nginx,
    postgres,
    prometheus,
    redis,
)
from watchpost.probes.base import Probe, ProbeResult

if TYPE_CHECKING:
    from watchpost.collectors.models import CollectorTarget
    from watchpost.crypto import SecretBox


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


PROBES: Final[dict[str, Probe[TargetSettings]]] = {
    "postgres": postgres.probe,
    "mysql": mysql.probe,
    "redis": redis.probe,
    "mongodb": mongodb.probe,
    "memcached": memcached.probe,
    "elasticsearch": elasticsearch.probe,
    "nginx": nginx.probe,
    "apache": apache.probe,
    "kafka": kafka.probe,
    "prometheus": prometheus.probe,
}


async def probe_target(settings: TargetSettings, *, timeout: float) -> ProbeResult:
    """Runs the probe of the target's kind."""
    return await PROBES[settings.kind](settings, timeout=timeout)


def target_settings(target: CollectorTarget, box: SecretBox) -> TargetSettings:
    """The probe input of a stored target, its credentials decrypted with box."""
    return TargetSettings(
        kind=target.kind,
        host=target.host,
        port=target.port,
        service=target.service,
        listen_ip=target.listen_ip,
        endpoint=target.endpoint,
        scheme=target.scheme,
        username=target.username,
        password=box.decrypt(target.password_encrypted) if target.password_encrypted else None,
        api_key=box.decrypt(target.api_key_encrypted) if target.api_key_encrypted else None,
        ssl_mode=target.ssl_mode,
        tls=target.tls,
    )
