"""Connecting out under the destination policy: resolve first, check, then connect to the address.

Validation refuses a denied address when an object is created or changed, but a host name's
DNS answer can change afterwards (DNS rebinding), so every outgoing connection of a probe or a
delivery resolves its host here, checks every address against the policy of
`watchpost.destinations`, and connects to a checked address, never to the name again:

- `resolve()` / `open_connection()` / `reachable_address()` for asyncio streams and for the
  clients that take an address (database drivers get the IP, and keep the name for TLS);
- `PolicyResolver` and `checked_socket` for aiohttp: the resolver checks names, the socket
  factory checks every address a connection is made to (IP literals and redirects included);
- `policed()` for the libraries Watchpost does not connect for (Apprise: requests, smtplib,
  paho, raw sockets, each in worker threads): while it is active, in its context and the
  threads that copy it, every socket's connect and sendto checks the address, and a name is
  resolved and checked once, then connected to by address.

A denied address fails the check with `DeniedAddress`, an OSError whose message is for people,
before anything is sent.
"""

from __future__ import annotations

import _socket
import asyncio
import contextvars
import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from watchpost import destinations

AddrInfo = tuple[socket.AddressFamily, socket.SocketKind, int, str, tuple[Any, ...]]
"""One getaddrinfo() answer: family, type, proto, canonname, socket address."""


class DeniedAddress(OSError):
    """The destination is (or resolves to) a denied address; nothing was sent."""


def check_address(host: str, address: str) -> None:
    """Raises DeniedAddress when address (what host resolved to) is in a denied network.
    The callers have already refused a denied name (`resolve`, `PolicyResolver`) or pass an
    address literal (`checked_socket`)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    network = destinations.current().denied_network(ip)
    if network is None:
        return
    if host.strip("[]") == str(ip):
        raise DeniedAddress(f"{ip} is in a denied network ({network})")
    if destinations.literal_address(host) is not None:
        raise DeniedAddress(f"{host} is {ip}, in a denied network ({network})")
    raise DeniedAddress(f"{host} resolves to {ip}, a denied network ({network})")


async def resolve(
    host: str, port: int, *, kind: socket.SocketKind = socket.SOCK_STREAM
) -> list[AddrInfo]:
    """Every address of host, each checked; DeniedAddress if any is denied.

    Refusing the whole name when one of its addresses is denied (rather than skipping that
    one) keeps a rebinding answer from being half-used.
    """
    if destinations.is_denied_name(host):
        raise DeniedAddress(f"{host} is a cloud metadata host, a denied destination")
    name = _dns_name(host)
    infos = await asyncio.get_running_loop().getaddrinfo(name, port, type=kind)
    checked: list[AddrInfo] = []
    for info in infos:
        check_address(host, str(info[4][0]))
        if info not in checked:
            checked.append(info)
    return checked


async def open_connection(
    host: str, port: int, **kwargs: Any
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """asyncio.open_connection() to the checked addresses of host, in order.

    With TLS the certificate is checked against host (the name), not the address.
    """
    if kwargs.get("ssl"):
        kwargs["server_hostname"] = _dns_name(kwargs.get("server_hostname") or host)
    error: OSError | None = None
    for info in await resolve(host, port):
        address, address_port = info[4][0], info[4][1]
        try:
            return await asyncio.open_connection(address, address_port, **kwargs)
        except OSError as exc:
            error = exc
    raise error or OSError(f"no address for {host}")


async def reachable_address(host: str, port: int) -> str:
    """A checked address of host for a client that connects by itself (database drivers).

    With one address, that one; with several, the first that accepts a TCP connection (the
    order getaddrinfo gives, as a client connecting by name would try them).
    """
    infos = await resolve(host, port)
    if len(infos) == 1:
        return str(infos[0][4][0])
    error: OSError | None = None
    for info in infos:
        try:
            _, writer = await asyncio.open_connection(info[4][0], port)
        except OSError as exc:
            error = exc
            continue
        writer.close()
        return str(info[4][0])
    raise error or OSError(f"no address for {host}")


def _dns_name(host: str) -> str:
    """The name to resolve and to send as TLS server name: an internationalized name in its
    xn-- form, encoded as aiohttp encodes a URL's host (Python's own "idna" codec, which
    getaddrinfo and ssl would use, is the older IDNA 2003: "faß.de" would be "fass.de")."""
    try:
        return destinations.ascii_name(host.strip("[]"))
    except ValueError as exc:
        raise OSError(f"{host}: {exc}") from None


def udp_address(infos: list[AddrInfo]) -> tuple[str, int]:
    return str(infos[0][4][0]), int(infos[0][4][1])


class PolicyResolver(AbstractResolver):
    """aiohttp's default resolver, its answers checked against the policy."""

    def __init__(self) -> None:
        self._inner = DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        if destinations.is_denied_name(host):
            raise DeniedAddress(f"{host} is a cloud metadata host, a denied destination")
        results = await self._inner.resolve(host, port, family)
        for result in results:
            check_address(host, result["host"])
        return results

    async def close(self) -> None:
        await self._inner.close()


def checked_socket(
    info: tuple[int, int, int, str, tuple[Any, ...]],
) -> socket.socket:
    """aiohttp's socket factory: the last check, on the address actually connected to.

    aiohttp does not resolve IP literals (a URL's or a redirect's), so only this sees them.
    """
    family, kind, proto, _, sockaddr = info
    check_address(str(sockaddr[0]), str(sockaddr[0]))
    return socket.socket(family, kind, proto)


# ------------------------------------------------------------- any library's sockets


@dataclass
class Refusals:
    """What the connections of one policed() block were refused, in order."""

    messages: list[str] = field(default_factory=list)


_policed: contextvars.ContextVar[Refusals | None] = contextvars.ContextVar(
    "watchpost_outbound_policed", default=None
)
_install_lock = threading.Lock()
_installed = False


@contextmanager
def policed() -> Iterator[Refusals]:
    """Every connection made in this block's context goes through the policy, whichever
    library makes it: its refusals are collected in the Refusals yielded.

    The socket guard is installed on first use and then costs other code one context
    variable read per connect; outside a policed() context (the operator's ClickHouse,
    the database drivers, the probes) nothing changes. A thread pool that copies the
    context (Apprise's does, as asyncio.to_thread does) is policed with it.
    """
    _install()
    refusals = Refusals()
    token = _policed.set(refusals)
    try:
        yield refusals
    finally:
        _policed.reset(token)


def _checked(refusals: Refusals, check: Any, *args: Any) -> None:
    """check(*args), its DeniedAddress recorded in refusals before it is raised."""
    try:
        check(*args)
    except DeniedAddress as exc:
        refusals.messages.append(str(exc))
        raise


def _check_name(host: str) -> None:
    if destinations.is_denied_name(host):
        raise DeniedAddress(f"{host} is a cloud metadata host, a denied destination")


def _check_answers(host: str, infos: list[Any]) -> None:
    """Every address of a name's answer: one denied refuses the name (as `resolve` does)."""
    for info in infos:
        if info[0] in (socket.AF_INET, socket.AF_INET6):
            check_address(host, str(info[4][0]))


def _police(sock: socket.socket, address: Any) -> Any:
    """The address to connect or send to, checked; a name is resolved once, checked, and
    replaced by its address (no second lookup). DeniedAddress when it is denied."""
    refusals = _policed.get()
    if refusals is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return address
    first = address[0]
    host = first.decode() if isinstance(first, bytes) else str(first)
    rest = tuple(address[1:])
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        _checked(refusals, _check_name, host)
        infos = _getaddrinfo(host, rest[0], sock.family, sock.type)
        _checked(refusals, _check_answers, host, infos)
        return (str(infos[0][4][0]), *rest)
    _checked(refusals, check_address, host, host)
    return address


_getaddrinfo = socket.getaddrinfo


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    refusals = _policed.get()
    if refusals is None or not isinstance(host, str | bytes):
        return _getaddrinfo(host, *args, **kwargs)
    name = host.decode() if isinstance(host, bytes) else host
    _checked(refusals, _check_name, name)
    infos = _getaddrinfo(host, *args, **kwargs)
    _checked(refusals, _check_answers, name, infos)
    return infos


def _connect(self: socket.socket, address: Any) -> None:
    _socket.socket.connect(self, _police(self, address))


def _connect_ex(self: socket.socket, address: Any) -> int:
    return _socket.socket.connect_ex(self, _police(self, address))


def _sendto(self: socket.socket, data: Any, *args: Any) -> int:
    args = (*args[:-1], _police(self, args[-1]))
    return _socket.socket.sendto(self, data, *args)


def _install() -> None:
    """Puts the guard on Python's socket class (ssl.SSLSocket and every library's sockets
    derive from it) and on socket.getaddrinfo; once per process."""
    global _installed
    with _install_lock:
        if _installed:
            return
        socket.socket.connect = _connect  # type: ignore[method-assign, assignment]
        socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign, assignment]
        socket.socket.sendto = _sendto  # type: ignore[method-assign, assignment]
        socket.getaddrinfo = _guarded_getaddrinfo
        _installed = True
