"""HTTP monitor probes against a real local HTTP(S) server (uvicorn, tests/factories/monitor_servers.py)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.factories.api import TEST_PASSWORD
from tests.factories.monitor_servers import HTTP_USER, http_server, self_signed
from tests.factories.servers import SHORT_TIMEOUT, TIMEOUT, free_port
from watchpost.probes.base import ProbeResult
from watchpost.probes.http import CLIENT
from watchpost.probes.monitors import web
from watchpost.probes.monitors.check import Header, MonitorCheck
from watchpost.probes.monitors.registry import PROBES


@pytest.fixture(scope="module")
def http_port() -> Iterator[int]:
    with http_server() as port:
        yield port


@pytest.fixture(scope="module")
def https_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    certfile, keyfile = self_signed(
        tmp_path_factory.mktemp("tls"), not_after=dt.datetime.now(dt.UTC) + dt.timedelta(days=90)
    )
    with http_server(certfile, keyfile) as port:
        yield port


def monitor(monitor_type: str, url: str, **fields: object) -> MonitorCheck:
    return replace(MonitorCheck(monitor_type=monitor_type, url=url, timeout=TIMEOUT), **fields)  # type: ignore[arg-type]


async def check(settings: MonitorCheck) -> ProbeResult:
    return await PROBES[settings.monitor_type](settings, timeout=settings.timeout)


@pytest.mark.parametrize(
    "monitor_type", ["status", "expected_status_code", "keyword", "keyword_absence"]
)
def test_every_http_type_uses_the_http_probe(monitor_type: str) -> None:
    assert PROBES[monitor_type] is web.http_check


@pytest.mark.parametrize(
    ("code", "ok"), [(200, True), (204, True), (301, True), (404, False), (503, False)]
)
async def test_status_passes_on_2xx_and_3xx(http_port: int, code: int, ok: bool) -> None:
    url = f"http://127.0.0.1:{http_port}/status/{code}"
    result = await check(monitor("status", url, follow_redirects=False))
    assert result.ok is ok
    assert result.details["status_code"] == str(code)
    assert result.error == (None if ok else f"HTTP {code}")


async def test_expected_status_code(http_port: int) -> None:
    url = f"http://127.0.0.1:{http_port}/status/503"
    assert (await check(monitor("expected_status_code", url, expected_status_codes=(503,)))).ok
    result = await check(monitor("expected_status_code", url, expected_status_codes=(200, 201)))
    assert not result.ok
    assert result.error == "HTTP 503 (expected 200, 201)"


async def test_expected_status_code_without_codes_behaves_like_status(http_port: int) -> None:
    ok = await check(monitor("expected_status_code", f"http://127.0.0.1:{http_port}/status/200"))
    bad = await check(monitor("expected_status_code", f"http://127.0.0.1:{http_port}/status/500"))
    assert ok.ok and not bad.ok


async def test_keyword_present_and_missing(http_port: int) -> None:
    url = f"http://127.0.0.1:{http_port}/keyword"
    assert (await check(monitor("keyword", url, required_keyword="operational"))).ok
    result = await check(monitor("keyword", url, required_keyword="Operational"))
    assert not result.ok
    assert result.error == "keyword 'Operational' not found"


async def test_keyword_absence(http_port: int) -> None:
    url = f"http://127.0.0.1:{http_port}/keyword"
    assert (await check(monitor("keyword_absence", url, required_keyword="error"))).ok
    result = await check(monitor("keyword_absence", url, required_keyword="operational"))
    assert not result.ok
    assert result.error == "keyword 'operational' found"


async def test_keyword_on_an_error_page_fails_on_the_status(http_port: int) -> None:
    url = f"http://127.0.0.1:{http_port}/status/500"
    result = await check(monitor("keyword_absence", url, required_keyword="operational"))
    assert result.error == "HTTP 500"


async def test_keyword_beyond_the_body_limit_is_not_seen(http_port: int) -> None:
    url = f"http://127.0.0.1:{http_port}/large"
    result = await check(monitor("keyword", url, required_keyword="needle"))
    assert result.error == "keyword 'needle' not found"
    assert result.metrics == {}  # failures carry no metrics
    ok = await check(monitor("keyword", url, required_keyword="xxx"))
    assert ok.metrics["body_bytes"] == web.BODY_LIMIT


async def test_keyword_monitor_without_keyword_is_a_configuration_error(http_port: int) -> None:
    result = await check(monitor("keyword", f"http://127.0.0.1:{http_port}/keyword"))
    assert result.error == "required_keyword is needed for keyword monitors"


async def test_redirect_followed_or_not(http_port: int) -> None:
    url = f"http://127.0.0.1:{http_port}/redirect"
    followed = await check(monitor("keyword", url, required_keyword="operational"))
    assert followed.ok and followed.details["status_code"] == "200"
    kept = await check(monitor("status", url, follow_redirects=False))
    assert kept.ok and kept.details["status_code"] == "302"
    not_followed = await check(
        monitor("keyword", url, required_keyword="operational", follow_redirects=False)
    )
    assert not_followed.error == "keyword 'operational' not found"


async def test_redirect_loop(http_port: int) -> None:
    result = await check(monitor("status", f"http://127.0.0.1:{http_port}/redirect-loop"))
    assert result.error == f"too many redirects (more than {web.MAX_REDIRECTS})"


async def test_cookies_remembered_across_redirects_only_when_asked(http_port: int) -> None:
    url = f"http://127.0.0.1:{http_port}/cookie/set"
    assert (await check(monitor("status", url, remember_cookies=True))).ok
    assert (await check(monitor("status", url))).error == "HTTP 403"


async def test_basic_auth(http_port: int) -> None:
    url = f"http://127.0.0.1:{http_port}/auth"
    good = monitor("status", url, auth_username=HTTP_USER, auth_password=TEST_PASSWORD)
    assert (await check(good)).ok
    bad = await check(replace(good, auth_password="wrong"))
    assert bad.error == "HTTP 401"
    assert (await check(monitor("status", url))).error == "HTTP 401"


@pytest.mark.parametrize("method", ["get", "post", "put", "patch"])
async def test_method_body_and_headers_are_sent(http_port: int, method: str) -> None:
    settings = monitor(
        "keyword",
        f"http://127.0.0.1:{http_port}/echo",
        http_method=method,
        request_body='{"ping": 1}',
        request_headers=(Header("X-Probe", "yes"), Header("Content-Type", "application/json")),
        required_keyword='"method": "' + method.upper() + '"',
    )
    result = await check(settings)
    assert result.ok, result.error
    # The echo itself, to see body and headers arrived as sent.
    body = await _echo(settings)
    assert body["body"] == '{"ping": 1}'
    assert body["headers"]["x-probe"] == "yes"
    assert body["headers"]["content-type"] == "application/json"
    assert body["headers"]["user-agent"] == web.USER_AGENT


async def _echo(settings: MonitorCheck) -> dict[str, Any]:
    session = CLIENT.session()
    async with session.request(**web._request_args(settings)) as response:  # type: ignore[arg-type]
        echoed: dict[str, Any] = json.loads(await response.read())
        return echoed


async def test_head_request(http_port: int) -> None:
    assert (
        await check(
            monitor("status", f"http://127.0.0.1:{http_port}/status/200", http_method="head")
        )
    ).ok


async def test_timeout_against_a_server_that_never_answers(http_port: int) -> None:
    url = f"http://127.0.0.1:{http_port}/hang"
    result = await PROBES["status"](monitor("status", url), timeout=SHORT_TIMEOUT)
    assert result.error == f"timed out after {SHORT_TIMEOUT:g}s"


async def test_connection_refused() -> None:
    port = free_port()
    result = await check(monitor("status", f"http://127.0.0.1:{port}/"))
    assert result.error == f"connection refused by 127.0.0.1:{port}"


async def test_unknown_host() -> None:
    result = await check(monitor("status", "http://no-such-host.invalid/"))
    assert result.error is not None and result.error.startswith("cannot resolve host")


async def test_bad_configuration_is_a_result(http_port: int) -> None:
    assert (await check(monitor("status", "ftp://example.com/"))).error == (
        "url must start with http:// or https://"
    )
    result = await check(monitor("status", f"http://127.0.0.1:{http_port}/", http_method="delete"))
    assert result.error == "unsupported http_method 'delete'"


async def test_self_signed_certificate_fails_verification(https_port: int) -> None:
    url = f"https://127.0.0.1:{https_port}/status/200"
    result = await check(monitor("status", url))
    assert not result.ok
    assert result.error is not None
    assert result.error.startswith("TLS certificate verify failed: self")


async def test_self_signed_certificate_passes_without_verification(https_port: int) -> None:
    url = f"https://127.0.0.1:{https_port}/keyword"
    result = await check(monitor("keyword", url, verify_ssl=False, required_keyword="operational"))
    assert result.ok, result.error


async def test_password_never_in_an_error(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://{HTTP_USER}:{TEST_PASSWORD}@127.0.0.1:{port}/"
    result = await check(monitor("status", url, auth_password=TEST_PASSWORD))
    assert result.error is not None and TEST_PASSWORD not in result.error
