"""Which probe checks each collector target kind, and a stored target's probe input.

KINDS is the one list of kinds; probe_of() gives each kind's probe.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Final, get_args

from watchpost.probes.base import Probe, ProbeResult
from watchpost.probes.targets.settings import TargetKind, TargetSettings

if TYPE_CHECKING:
    from watchpost.collectors.models import CollectorTarget
    from watchpost.crypto import SecretBox


KINDS: Final[tuple[str, ...]] = get_args(TargetKind)
"""Every target kind; `watchpost.probes.targets.<kind>.probe` checks it. A kind's module and
its client library (psycopg, aiomysql, redis, pymongo, aiokafka …) load at the first check of
that kind: a server or probe agent that checks no such target never loads its driver."""

_loaded: dict[str, Probe[TargetSettings]] = {}


def probe_of(kind: str) -> Probe[TargetSettings]:
    """The probe of a target kind (KeyError for a kind there is none of)."""
    found = _loaded.get(kind)
    if found is None:
        if kind not in KINDS:
            raise KeyError(kind)
        found = _loaded[kind] = importlib.import_module(f"{__package__}.{kind}").probe
    return found


async def probe_target(settings: TargetSettings, *, timeout: float) -> ProbeResult:
    """Runs the probe of the target's kind."""
    return await probe_of(settings.kind)(settings, timeout=timeout)


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
