"""Which probe checks each collector target kind, and a stored target's probe input.

PROBES is the one table kind → probe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from watchpost.probes.base import Probe, ProbeResult
from watchpost.probes.targets import (
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
from watchpost.probes.targets.settings import TargetSettings

if TYPE_CHECKING:
    from watchpost.collectors.models import CollectorTarget
    from watchpost.crypto import SecretBox


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
