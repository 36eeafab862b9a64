"""MySQL / MariaDB: connect, authenticate, SELECT 1, read SHOW GLOBAL STATUS."""

from __future__ import annotations

import ssl
from typing import TYPE_CHECKING, Any, Final

import aiomysql  # type: ignore[import-untyped]
import pymysql  # type: ignore[import-untyped]
from pymysql.constants import CLIENT  # type: ignore[import-untyped]

from watchpost import outbound
from watchpost.probes.base import ProbeResult
from watchpost.probes.errors import Address, first_line
from watchpost.probes.targets.common import Reading, run_check

if TYPE_CHECKING:
    from watchpost.probes.targets.settings import TargetSettings

DEFAULT_PORT: Final = 3306
DEFAULT_USER: Final = "root"
STATUS_METRICS: Final[dict[str, str]] = {
    "Threads_connected": "threads_connected",
    "Threads_running": "threads_running",
    "Questions": "questions",
    "Uptime": "uptime",
    "Slow_queries": "slow_queries",
}
# Error codes of the server and of the client library worth their own wording.
ACCESS_DENIED: Final = frozenset({1044, 1045, 1698})
CANNOT_CONNECT: Final = 2003


class TlsNotOffered(Exception):
    """The server does not offer TLS and the target's tls mode requires it."""


class _ProbeConnection(aiomysql.Connection):  # type: ignore[misc]
    """Connects to a checked address (outbound.py) and names the host for TLS.

    aiomysql uses one `host` for the connection and for TLS: the probe gives it the address,
    then puts the name back before the TLS upgrade, which `_request_authentication` starts.
    With `strict`, a server that offers no TLS is refused (aiomysql would silently stay in
    plain text) before the credentials are sent.
    """

    def __init__(self, *, server_name: str, strict: bool, **options: Any) -> None:
        super().__init__(**options)
        self._server_name = server_name
        self._strict = strict

    async def _request_authentication(self) -> None:
        if (
            self._strict
            and self._ssl_context is not None
            and not self.server_capabilities & CLIENT.SSL
        ):
            raise TlsNotOffered
        self._host = self._server_name
        await super()._request_authentication()


def tls_context(mode: str) -> ssl.SSLContext | None:
    """The ssl context of a tls mode: true verifies, skip-verify and preferred do not."""
    if mode == "false":
        return None
    context = ssl.create_default_context()
    if mode != "true":
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


async def probe(settings: TargetSettings, *, timeout: float) -> ProbeResult:
    address = Address(settings.host, settings.port or DEFAULT_PORT)
    mode = settings.tls or "false"
    user = settings.username or DEFAULT_USER

    async def connect() -> Any:
        options: dict[str, Any] = {
            "host": await outbound.reachable_address(settings.host, address.port),
            "port": address.port,
            "user": user,
            "password": settings.password or "",
            "connect_timeout": timeout + 1,
            "autocommit": True,
            "program_name": "watchpost-probe",
            "ssl": tls_context(mode),
        }
        # preferred: TLS when the server offers it, plain text otherwise (aiomysql's own way).
        conn = _ProbeConnection(server_name=settings.host, strict=mode != "preferred", **options)
        try:
            await conn._connect()
        except BaseException:
            conn.close()
            raise
        return conn

    async def check() -> Reading:
        conn = await connect()
        try:
            async with conn.cursor() as cursor:
                await cursor.execute("SELECT 1, VERSION()")
                _, version = await cursor.fetchone()
                await cursor.execute("SHOW GLOBAL STATUS")
                status = dict(await cursor.fetchall())
                await cursor.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
                cipher_row = await cursor.fetchone()
        finally:
            conn.close()
        metrics = {
            name: float(status[key])
            for key, name in STATUS_METRICS.items()
            if str(status.get(key, "")).isdigit()
        }
        cipher = cipher_row[1] if cipher_row else ""
        return Reading(
            metrics=metrics,
            details={"server_version": str(version), "tls": cipher or "off"},
        )

    def explain(exc: Exception) -> str | None:
        if isinstance(exc, TlsNotOffered):
            return f"TLS required (tls={mode}) but {address} does not offer TLS"
        if isinstance(exc, pymysql.err.MySQLError) and exc.args:
            code = exc.args[0]
            if code in ACCESS_DENIED:
                return f"authentication failed for user {user} on {address}"
            if code == CANNOT_CONNECT:
                return None  # the network error in the chain says more
            return f"MySQL at {address}: {first_line(exc)}"
        return None

    return await run_check(settings, timeout=timeout, address=address, check=check, explain=explain)
