"""PostgreSQL: connect, authenticate, read the server version and pg_stat_database totals."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Final

import psycopg

from watchpost import outbound
from watchpost.probes.base import ProbeResult
from watchpost.probes.errors import Address, first_line
from watchpost.probes.targets.common import Reading, run_check

if TYPE_CHECKING:
    from watchpost.probes.targets.settings import TargetSettings

DEFAULT_PORT: Final = 5432
# The target names no database: the maintenance database exists on every server, and
# pg_stat_database gives cluster-wide totals from any of them.
DATABASE: Final = "postgres"
DEFAULT_USER: Final = "postgres"
# ssl_mode of the API → libpq sslmode. verify-ca reads the CA from libpq's usual place
# (~/.postgresql/root.crt, or the PGSSLROOTCERT environment variable).
SSLMODES: Final[dict[str, str]] = {
    "disable": "disable",
    "require": "require",
    "verify-ca": "verify-ca",
}
STATS_QUERY: Final = """
SELECT current_setting('server_version'),
       coalesce(sum(numbackends), 0), coalesce(sum(xact_commit), 0),
       coalesce(sum(xact_rollback), 0), coalesce(sum(deadlocks), 0)
FROM pg_stat_database
"""


async def probe(settings: TargetSettings, *, timeout: float) -> ProbeResult:
    address = Address(settings.host, settings.port or DEFAULT_PORT)
    sslmode = SSLMODES[settings.ssl_mode or "disable"]

    async def check() -> Reading:
        conn = await psycopg.AsyncConnection.connect(
            # libpq connects to the checked address; the name stays for TLS and messages.
            host=settings.host,
            hostaddr=await outbound.reachable_address(settings.host, address.port),
            port=address.port,
            dbname=DATABASE,
            user=settings.username or DEFAULT_USER,
            password=settings.password or "",
            sslmode=sslmode,
            # libpq's own limit is whole seconds, at least 2; the probe's deadline still rules.
            connect_timeout=max(2, math.ceil(timeout) + 1),
            application_name="watchpost-probe",
            autocommit=True,
        )
        async with conn:
            cursor = await conn.execute(STATS_QUERY)
            row = await cursor.fetchone()
            encrypted = conn.pgconn.ssl_in_use
        assert row is not None
        version, backends, commits, rollbacks, deadlocks = row
        return Reading(
            metrics={
                "numbackends": float(backends),
                "xact_commit": float(commits),
                "xact_rollback": float(rollbacks),
                "deadlocks": float(deadlocks),
            },
            details={"server_version": str(version), "tls": "on" if encrypted else "off"},
        )

    def explain(exc: Exception) -> str | None:
        if not isinstance(exc, psycopg.Error):
            return None
        return _explain(first_line(exc), str(exc), address, sslmode, settings.username)

    return await run_check(settings, timeout=timeout, address=address, check=check, explain=explain)


def _explain(line: str, text: str, address: Address, sslmode: str, user: str | None) -> str:
    # libpq reports connection failures as text only (no SQLSTATE before the session exists).
    user = user or DEFAULT_USER
    if "failed to resolve host" in text or "could not translate host name" in text:
        return f"cannot resolve host {address.host} (DNS lookup failed)"
    if "Connection refused" in text:
        return f"connection refused by {address} (nothing listens on that port?)"
    if "server does not support SSL" in text:
        return f"TLS required (ssl_mode={sslmode}) but {address} does not offer TLS"
    if "certificate verify failed" in text or "root certificate file" in text:
        return f"TLS handshake with {address} failed: certificate not trusted ({_reason(text)})"
    if "SSL" in text and "error" in text.lower():
        return f"TLS handshake with {address} failed ({_reason(text)})"
    if "password authentication failed" in text or "authentication failed" in text:
        return f"authentication failed for user {user} on {address}"
    if "no password supplied" in text:
        return f"authentication failed: {address} asks for a password and none is set"
    if re.search(r'role ".*" does not exist', text):
        return f"authentication failed: role {user} does not exist on {address}"
    if "no pg_hba.conf entry" in text:
        return f"authentication failed: {address} does not accept user {user} from this host (pg_hba.conf)"
    if "timeout expired" in text:
        return f"no answer from {address} in time"
    return f"PostgreSQL at {address}: {_reason(text) or line}"


def _reason(text: str) -> str:
    """libpq's message without its `connection to server at … failed:` preamble."""
    last = text.strip().splitlines()[0]
    if "failed:" in last:
        last = last.rsplit("failed:", 1)[1]
    return last.replace("FATAL:", "").strip()
