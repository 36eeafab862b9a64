"""Internationalized host names: a monitor on "bücher.test" is stored as written and checked
at the name's xn-- form (IDNA 2008 with the UTS #46 mapping, as aiohttp encodes a URL's host).

The one thing stood in is the name lookup: no DNS here answers for an internationalized name,
so the event loop's getaddrinfo answers 127.0.0.1 for the names a test gives and records what
it was asked; the probes connect to real servers on loopback.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.factories.api import Api, data, errors
from tests.factories.monitors import MINIMAL, MONITORS
from tests.factories.servers import TIMEOUT, free_port, http_server, silent_server
from watchpost.probes.monitors.check import MonitorCheck
from watchpost.probes.monitors.registry import PROBES


@pytest.fixture
async def asked(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[list[str]]:
    """The names this test's loop looks up; an xn-- name resolves to loopback."""
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo
    names: list[str] = []

    async def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        names.append(host)
        if isinstance(host, str) and host.startswith("xn--"):
            host = "127.0.0.1"
        return await real(host, port, *args, **kwargs)

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)
    yield names


@pytest.mark.parametrize(
    ("host", "looked_up"),
    [
        ("bücher.test", "xn--bcher-kva.test"),
        # IDNA 2008, as for URLs: Python's own "idna" codec (IDNA 2003) would look up fass.test
        ("Faß.test", "xn--fa-hia.test"),
    ],
)
async def test_a_tcp_check_looks_up_the_names_xn_form(
    asked: list[str], host: str, looked_up: str
) -> None:
    async with silent_server() as port:
        check = MonitorCheck(monitor_type="tcp", url=host, port=str(port))
        result = await PROBES["tcp"](check, timeout=TIMEOUT)
    assert result.ok, result.error
    assert asked == [looked_up]


async def test_an_http_check_sends_the_xn_form_as_host(asked: list[str]) -> None:
    seen: list[str] = []

    def respond(target: str, headers: dict[str, str]) -> tuple[int, str, str]:
        seen.append(headers["host"])
        return 200, "text/plain", "ok"

    async with http_server(respond) as port:
        url = f"http://bücher.test:{port}/health"
        check = MonitorCheck(monitor_type="status", url=url, timeout=TIMEOUT)
        result = await PROBES["status"](check, timeout=TIMEOUT)
    assert result.ok, result.error
    assert seen == [f"xn--bcher-kva.test:{port}"]
    assert asked == ["xn--bcher-kva.test"]


@pytest.mark.parametrize("monitor_type", ["status", "tcp"])
async def test_an_error_names_the_host_as_written(asked: list[str], monitor_type: str) -> None:
    port = free_port()  # nothing listens: refused
    url = f"http://bücher.test:{port}/" if monitor_type == "status" else "bücher.test"
    check = MonitorCheck(monitor_type=monitor_type, url=url, port=str(port), timeout=TIMEOUT)
    result = await PROBES[monitor_type](check, timeout=TIMEOUT)
    assert result.error == f"connection refused by bücher.test:{port}"
    assert asked == ["xn--bcher-kva.test"]


async def test_a_name_that_is_no_valid_idn_fails_the_check_not_the_engine() -> None:
    """Stored before this rule (or by hand): the check is down with the reason."""
    check = MonitorCheck(monitor_type="tcp", url="a\u200db.test", port="80")
    result = await PROBES["tcp"](check, timeout=TIMEOUT)
    assert not result.ok
    assert result.error is not None and "a\u200db.test" in result.error


@pytest.mark.parametrize("host", ["bücher.test", "例え.テスト", "xn--bcher-kva.test"])
async def test_a_monitor_keeps_the_name_as_written(api: Api, host: str) -> None:
    for monitor_type, url in (("status", f"https://{host}/health"), ("tcp", host)):
        body = {**MINIMAL[monitor_type], "url": url}
        if monitor_type == "tcp":
            body["port"] = "443"
        monitor = data(await api.post(MONITORS, body), 201)
        assert monitor["attributes"]["url"] == url
        read = data(await api.get(f"{MONITORS}/{monitor['id']}"), 200)
        assert read["attributes"]["url"] == url


@pytest.mark.parametrize(
    "url", ["https://a\u200db.test/", "https://bü_cher.test/", "https://-bücher.test/"]
)
async def test_a_name_that_is_no_valid_idn_is_422(api: Api, url: str) -> None:
    response = await api.post(MONITORS, {**MINIMAL["status"], "url": url})
    assert errors(response)[1] == ["url"], response.text


async def test_a_status_page_domain_is_asked_for_in_its_xn_form(api: Api) -> None:
    body = {"company_name": "Bücher", "subdomain": "buecher", "custom_domain": "status.bücher.de"}
    response = await api.post("/api/v2/status-pages", body)
    messages, fields = errors(response)
    assert fields == ["custom_domain"]
    assert "status.xn--bcher-kva.de" in messages[0]
    body["custom_domain"] = "status.xn--bcher-kva.de"
    page = data(await api.post("/api/v2/status-pages", body), 201)
    assert page["attributes"]["custom_domain"] == "status.xn--bcher-kva.de"
