"""Servers for the monitor probe tests: dnsmasq (scripts/ci-services-monitors), a real HTTP(S)
server (uvicorn in a thread, tiny ASGI app) and self-signed certificates made here."""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.factories.api import TEST_PASSWORD
from tests.factories.servers import require_tcp

DNSMASQ = ("127.0.0.1", 15353)  # ci/dnsmasq.conf
HTTP_USER = "monitor"
LARGE_BODY = 2 * 1024 * 1024


def require_dnsmasq() -> None:
    require_tcp("dnsmasq (run scripts/ci-services-monitors)", DNSMASQ)


def self_signed(folder: Path, *, not_after: dt.datetime) -> tuple[Path, Path]:
    """A certificate for localhost/127.0.0.1 valid until not_after; (certfile, keyfile)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(min(dt.datetime.now(dt.UTC), not_after) - dt.timedelta(days=30))
        .not_valid_after(not_after)
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    certfile, keyfile = folder / "cert.pem", folder / "key.pem"
    certfile.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    keyfile.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return certfile, keyfile


async def _send(send: Any, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def asgi_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Routes: /status/N, /redirect, /keyword, /large, /hang, /auth, /echo, /cookie/*."""
    if scope["type"] != "http":
        return
    path: str = scope["path"]
    headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
    text = [(b"content-type", b"text/plain; charset=utf-8")]
    if path.startswith("/status/"):
        await _send(send, int(path.rsplit("/", 1)[1]), b"status page", text)
    elif path == "/redirect":
        await _send(send, 302, b"", [(b"location", b"/keyword")])
    elif path == "/redirect-loop":
        await _send(send, 302, b"", [(b"location", b"/redirect-loop")])
    elif path == "/keyword":
        await _send(send, 200, b"<html>all systems operational</html>", text)
    elif path == "/large":
        await _send(send, 200, b"x" * LARGE_BODY + b"needle", text)
    elif path == "/hang":
        # Never answers; returns once the client gives up and disconnects.
        while (await receive())["type"] != "http.disconnect":
            pass
    elif path == "/auth":
        expected = "Basic " + base64.b64encode(f"{HTTP_USER}:{TEST_PASSWORD}".encode()).decode()
        ok = headers.get("authorization") == expected
        await _send(send, 200 if ok else 401, b"welcome" if ok else b"no", text)
    elif path == "/echo":
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        echo = {"method": scope["method"], "body": body.decode(), "headers": headers}
        await _send(send, 200, json.dumps(echo).encode(), [(b"content-type", b"application/json")])
    elif path == "/cookie/set":
        cookie = [(b"set-cookie", b"session=abc; Path=/"), (b"location", b"/cookie/check")]
        await _send(send, 302, b"", cookie)
    elif path == "/cookie/check":
        ok = "session=abc" in headers.get("cookie", "")
        await _send(send, 200 if ok else 403, b"cookie seen" if ok else b"no cookie", text)
    else:
        await _send(send, 404, b"not found", text)


@contextmanager
def http_server(certfile: Path | None = None, keyfile: Path | None = None) -> Iterator[int]:
    """uvicorn serving asgi_app on a free loopback port in a thread of its own; yields the port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    config = uvicorn.Config(
        asgi_app,
        log_level="warning",
        lifespan="off",
        ssl_certfile=str(certfile) if certfile else None,
        ssl_keyfile=str(keyfile) if keyfile else None,
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    ready = threading.Event()
    for _ in range(500):  # bounded readiness poll, not a wait for a check
        if server.started:
            ready.set()
            break
        ready.wait(0.01)
    assert server.started, "uvicorn did not start"
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
