"""The probe input, the kind → probe table and the wording shared by every probe."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from tests.factories.api import TEST_API_KEY, TEST_PASSWORD
from tests.factories.processes import SRC
from tests.factories.servers import TIMEOUT, free_port, http_server, tcp_server
from watchpost.collectors.models import CollectorTarget
from watchpost.collectors.target_kinds import KINDS
from watchpost.crypto import SecretBox
from watchpost.probes.errors import EXCERPT_CHARS, Address, excerpt, scrub
from watchpost.probes.http import CLIENT
from watchpost.probes.monitors.check import MonitorCheck
from watchpost.probes.monitors.registry import PROBES as MONITOR_PROBES
from watchpost.probes.targets import registry
from watchpost.probes.targets.common import service_address
from watchpost.probes.targets.registry import probe_of, probe_target, target_settings
from watchpost.probes.targets.settings import TargetSettings


def test_every_kind_has_one_probe() -> None:
    assert set(registry.KINDS) == set(KINDS)
    for kind in KINDS:
        probe = probe_of(kind)
        assert callable(probe) and probe is probe_of(kind)  # loaded once
        assert probe is sys.modules[f"watchpost.probes.targets.{kind}"].probe
    with pytest.raises(KeyError):
        probe_of("oracle")


def test_no_target_driver_loads_until_a_target_of_its_kind_is_checked() -> None:
    """A probe agent (or a server) that checks only websites never loads the databases'
    client libraries: a fresh interpreter importing the agent shows none of them."""
    code = (
        "import sys, watchpost.agent.runner, watchpost.engine.checks;"
        "print(sorted(m for m in ('psycopg', 'aiomysql', 'redis', 'pymongo', 'aiokafka')"
        " if m in sys.modules))"
    )
    done = subprocess.run(  # noqa: S603  (fixed arguments)
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    assert done.stdout.strip() == "[]", done.stdout


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


# What a server answered never reaches an error text: a check may point at any allowed
# address, and its error is shown to whoever made it (probes/errors.py).
LEAKED = "AKIAWATCHPOSTCANARY7777"
METADATA_JSON = f'{{"Code":"Success","AccessKeyId":"{LEAKED}","Token":"{LEAKED}"}}\n'
ANSWERS = {
    "a body": (
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
        f"Content-Length: {len(METADATA_JSON)}\r\nConnection: close\r\n\r\n{METADATA_JSON}"
    ),
    "no HTTP at all": METADATA_JSON,
    "a bad header": f"HTTP/1.1 200 OK\r\nX-{LEAKED}\x01: v\r\nContent-Length: 0\r\n\r\n",
    "a bad chunk": f"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n{LEAKED}\r\n",
    "an unknown health status": (
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
        f'{len(LEAKED) + 14}\r\n\r\n{{"status":"{LEAKED}"}}'
    ),
}


@asynccontextmanager
async def answering(answer: str) -> AsyncIterator[int]:
    """A loopback server answering every connection with answer, whatever was asked."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(answer.encode())
        await writer.drain()
        await reader.read(4096)

    async with tcp_server(handle) as port:
        yield port


@pytest.mark.parametrize("answer", ANSWERS)
@pytest.mark.parametrize("kind", ["prometheus", "elasticsearch", "nginx", "apache", "monitor"])
async def test_an_error_text_never_quotes_the_server(kind: str, answer: str) -> None:
    async with answering(ANSWERS[answer]) as port:
        if kind == "monitor":
            url = f"http://127.0.0.1:{port}/health"
            check = MonitorCheck(monitor_type="keyword", url=url, required_keyword="healthy")
            result = await MONITOR_PROBES["keyword"](check, timeout=TIMEOUT)
        else:
            settings = TargetSettings(
                kind=kind,
                host="127.0.0.1",
                port=port,
                endpoint=f"http://127.0.0.1:{port}/metrics",
                scheme="http",
            )
            result = await probe_target(settings, timeout=TIMEOUT)
        await CLIENT.aclose()
    assert not result.ok
    assert result.error is not None and LEAKED not in result.error, result.error


async def test_a_name_a_protocol_defines_is_quoted_short() -> None:
    """Elasticsearch's cluster_name names the cluster in the error, cut to EXCERPT_CHARS."""
    name = "x" * 50 + LEAKED + "\n" * 3 + LEAKED
    body = json.dumps({"status": "red", "cluster_name": name, "unassigned_shards": 2})
    async with http_server(lambda target, headers: (200, "application/json", body)) as port:
        settings = TargetSettings(kind="elasticsearch", host="127.0.0.1", port=port)
        result = await probe_target(settings, timeout=TIMEOUT)
        await CLIENT.aclose()
    quoted = "x" * 50 + LEAKED[: EXCERPT_CHARS - 51] + "…"
    assert result.error == f"cluster {quoted} is red (2 unassigned shards)"
    assert excerpt("a\r\nb\x00c  d") == "a b c d"
