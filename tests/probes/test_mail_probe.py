"""SMTP, POP3 and IMAP banner probes.

The servers are in-test banner servers (asyncio, loopback), not Debian's dovecot/opensmtpd:
those packages start system daemons on the standard ports when installed, which would
disturb the machine. The probe only reads the greeting and says goodbye, which these
servers reproduce byte for byte (including SMTP's multi-line 220- greeting).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import ssl
from dataclasses import replace
from pathlib import Path

import pytest

from tests.factories.monitor_servers import self_signed
from tests.factories.servers import SHORT_TIMEOUT, TIMEOUT, free_port, silent_server, tcp_server
from watchpost.probes.monitors import mail
from watchpost.probes.monitors.check import MonitorCheck
from watchpost.probes.monitors.registry import PROBES


def banner_server(banner: bytes, goodbyes: list[bytes]) -> object:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(banner)
        await writer.drain()
        goodbyes.append(await reader.readline())

    return tcp_server(handle)


def monitor(monitor_type: str, port: int, **fields: object) -> MonitorCheck:
    return MonitorCheck(monitor_type=monitor_type, url="127.0.0.1", port=str(port), **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("monitor_type", "banner", "goodbye"),
    [
        ("smtp", b"220 mail.example ESMTP ready\r\n", b"QUIT\r\n"),
        ("smtp", b"220-mail.example ESMTP\r\n220-more text\r\n220 ready\r\n", b"QUIT\r\n"),
        ("pop", b"+OK POP3 ready\r\n", b"QUIT\r\n"),
        ("imap", b"* OK [CAPABILITY IMAP4rev1] ready\r\n", b"a1 LOGOUT\r\n"),
    ],
)
async def test_banner_read_and_goodbye_sent(
    monitor_type: str, banner: bytes, goodbye: bytes
) -> None:
    goodbyes: list[bytes] = []
    async with banner_server(banner, goodbyes) as port:  # type: ignore[attr-defined]
        result = await PROBES[monitor_type](monitor(monitor_type, port), timeout=TIMEOUT)
        assert result.ok, result.error
        for _ in range(100):  # the server task records the goodbye after the probe returns
            if goodbyes:
                break
            await asyncio.sleep(0)
    assert result.details["banner"] == banner.decode().splitlines()[-1]
    assert result.details["tls"] == "false"
    assert goodbyes == [goodbye]


@pytest.mark.parametrize(
    ("monitor_type", "banner", "name"),
    [
        ("smtp", b"554 no service\r\n", "SMTP"),
        ("pop", b"-ERR go away\r\n", "POP3"),
        ("imap", b"* BYE shutting down\r\n", "IMAP"),
    ],
)
async def test_wrong_banner(monitor_type: str, banner: bytes, name: str) -> None:
    async with banner_server(banner, []) as port:  # type: ignore[attr-defined]
        result = await PROBES[monitor_type](monitor(monitor_type, port), timeout=TIMEOUT)
    assert result.error == f"unexpected {name} banner: {banner.decode().strip()}"


async def test_silent_server_times_out() -> None:
    async with silent_server() as port:
        result = await PROBES["smtp"](monitor("smtp", port), timeout=SHORT_TIMEOUT)
    assert result.error == f"timed out after {SHORT_TIMEOUT:g}s waiting for the SMTP banner"


async def test_refused() -> None:
    port = free_port()
    result = await PROBES["imap"](monitor("imap", port), timeout=TIMEOUT)
    assert result.error == f"connection refused by 127.0.0.1:{port}"


async def test_closed_without_banner() -> None:
    async def close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    async with tcp_server(close) as port:
        result = await PROBES["pop"](monitor("pop", port), timeout=TIMEOUT)
    assert result.error == f"127.0.0.1:{port} closed the connection without a POP3 banner"


def test_tls_ports_and_default_ports() -> None:
    assert (mail.SMTP.default_port, mail.POP.default_port, mail.IMAP.default_port) == (25, 110, 143)
    assert mail.SMTP.tls_ports == {465} and mail.POP.tls_ports == {995}
    assert mail.IMAP.tls_ports == {993}


async def test_implicit_tls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server speaks TLS from the first byte; its port is made a TLS port of IMAP here."""
    certfile, keyfile = self_signed(
        tmp_path, not_after=dt.datetime.now(dt.UTC) + dt.timedelta(days=30)
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certfile, keyfile)

    async def greet(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"* OK IMAPS ready\r\n")
        await writer.drain()
        await reader.readline()
        writer.close()

    server = await asyncio.start_server(greet, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    monkeypatch.setattr(mail, "IMAP", replace(mail.IMAP, tls_ports=frozenset({port})))
    try:
        trusted = await PROBES["imap"](monitor("imap", port), timeout=TIMEOUT)
        untrusted = await PROBES["imap"](monitor("imap", port, verify_ssl=False), timeout=TIMEOUT)
    finally:
        server.close()
        await server.wait_closed()
    assert trusted.error is not None
    assert trusted.error.startswith("TLS certificate verify failed: self")
    assert untrusted.ok, untrusted.error
    assert untrusted.details["tls"] == "true"
