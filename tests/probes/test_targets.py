"""The probe input, the kind → probe table and the wording shared by every probe."""

from __future__ import annotations

from tests.factories.api import TEST_API_KEY, TEST_PASSWORD
from tests.factories.servers import free_port
from watchpost.collectors.models import CollectorTarget
from watchpost.collectors.target_kinds import KINDS
from watchpost.crypto import SecretBox
from watchpost.probes.errors import Address, scrub
from watchpost.probes.targets.common import service_address
from watchpost.probes.targets.registry import PROBES, probe_target, target_settings
from watchpost.probes.targets.settings import TargetSettings


def test_every_kind_has_one_probe() -> None:
    assert set(PROBES) == set(KINDS)


def test_settings_from_a_stored_target_decrypt_the_credentials() -> None:
    box = SecretBox("probe-test-key")
    target = CollectorTarget(
        kind="elasticsearch",
        host="search.internal",
        port=9200,
        scheme="https",
        username="watcher",
        password_encrypted=box.encrypt(TEST_PASSWORD),
        api_key_encrypted=box.encrypt(TEST_API_KEY),
    )
    settings = target_settings(target, box)
    assert settings == TargetSettings(
        kind="elasticsearch",
        host="search.internal",
        port=9200,
        scheme="https",
        username="watcher",
        password=TEST_PASSWORD,
        api_key=TEST_API_KEY,
    )


def test_settings_without_credentials_stay_empty() -> None:
    target = CollectorTarget(kind="redis", host="cache", port=6379)
    settings = target_settings(target, SecretBox("probe-test-key"))
    assert settings.password is None and settings.api_key is None and settings.secrets == ()


def test_credentials_never_show_in_repr() -> None:
    settings = TargetSettings(kind="redis", host="h", password=TEST_PASSWORD, api_key=TEST_API_KEY)
    assert TEST_PASSWORD not in repr(settings) and TEST_API_KEY not in repr(settings)


def test_scrub_replaces_every_credential() -> None:
    message = f"server said: bad password {TEST_PASSWORD} / {TEST_API_KEY}"
    assert scrub(message, (TEST_PASSWORD, TEST_API_KEY)) == "server said: bad password *** / ***"


def test_process_kinds_connect_to_a_concrete_listen_ip_else_host() -> None:
    def address(listen_ip: str | None, port: int | None = None) -> Address:
        settings = TargetSettings(kind="nginx", host="web", listen_ip=listen_ip, port=port)
        return service_address(settings, 80)

    assert address(None) == Address("web", 80)
    assert address("10.0.0.5", 8080) == Address("10.0.0.5", 8080)
    assert address("0.0.0.0") == Address("web", 80)  # noqa: S104
    assert address("::") == Address("web", 80)


async def test_dispatch_runs_the_probe_of_the_kind() -> None:
    port = free_port()
    result = await probe_target(
        TargetSettings(kind="memcached", host="127.0.0.1", port=port), timeout=5
    )
    assert not result.ok
    assert result.error == f"connection refused by 127.0.0.1:{port} (nothing listens on that port?)"


async def test_an_unknown_host_is_a_dns_failure() -> None:
    for kind in ("redis", "memcached", "kafka", "nginx"):
        settings = TargetSettings(kind=kind, host="no-such-host.invalid", port=1, service="s")
        result = await probe_target(settings, timeout=5)
        assert not result.ok
        assert result.error is not None and result.error.startswith(
            "cannot resolve host no-such-host.invalid"
        ), (kind, result.error)
