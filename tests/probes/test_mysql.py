"""MySQL probe against the machine's MariaDB (127.0.0.1:3306, root without a password).

A user with a password is created for the test and dropped after it. TLS: when the server
has TLS disabled (have_ssl), tls=true and tls=skip-verify must fail clearly and
tls=preferred must fall back to plain text; when it has TLS, skip-verify must encrypt.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pymysql  # type: ignore[import-untyped]
import pytest

from tests.factories.api import TEST_PASSWORD
from tests.factories.servers import (
    MARIADB,
    SHORT_TIMEOUT,
    TIMEOUT,
    free_port,
    require_tcp,
    silent_server,
)
from watchpost.probes.targets.mysql import probe
from watchpost.probes.targets.settings import TargetSettings


def target(**changes: object) -> TargetSettings:
    fields: dict[str, object] = {
        "kind": "mysql",
        "host": MARIADB[0],
        "port": MARIADB[1],
        "username": "root",
        "tls": "false",
    }
    return TargetSettings(**{**fields, **changes})  # type: ignore[arg-type]


def _admin() -> pymysql.Connection:
    return pymysql.connect(host=MARIADB[0], port=MARIADB[1], user="root", autocommit=True)


@pytest.fixture
def mariadb() -> None:
    require_tcp("MariaDB", MARIADB)


@pytest.fixture
def user(mariadb: None) -> Iterator[str]:
    """A user whose password is TEST_PASSWORD, dropped after the test."""
    name = f"wp_probe_{secrets.token_hex(4)}"
    with _admin() as conn, conn.cursor() as cursor:
        for host in ("127.0.0.1", "localhost"):
            cursor.execute(f"CREATE USER '{name}'@'{host}' IDENTIFIED BY %s", (TEST_PASSWORD,))
    try:
        yield name
    finally:
        with _admin() as conn, conn.cursor() as cursor:
            for host in ("127.0.0.1", "localhost"):
                cursor.execute(f"DROP USER IF EXISTS '{name}'@'{host}'")


@pytest.fixture
def have_ssl(mariadb: None) -> bool:
    with _admin() as conn, conn.cursor() as cursor:
        cursor.execute("SHOW VARIABLES LIKE 'have_ssl'")
        row = cursor.fetchone()
    return row is not None and row[1] == "YES"


@pytest.mark.usefixtures("mariadb")
async def test_reads_global_status() -> None:
    result = await probe(target(), timeout=TIMEOUT)
    assert result.ok, result.error
    assert result.metrics["threads_connected"] >= 1
    assert result.metrics["uptime"] >= 0
    assert "questions" in result.metrics
    assert result.details["server_version"]


async def test_a_user_with_the_right_password_passes(user: str) -> None:
    result = await probe(target(username=user, password=TEST_PASSWORD), timeout=TIMEOUT)
    assert result.ok, result.error


async def test_a_wrong_password_fails_without_echoing_it(user: str) -> None:
    result = await probe(target(username=user, password="wrong-" + TEST_PASSWORD), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"authentication failed for user {user} on 127.0.0.1:3306"


async def test_tls_true_needs_a_server_with_tls(have_ssl: bool) -> None:
    result = await probe(target(tls="true"), timeout=TIMEOUT)
    if have_ssl:  # the local server's certificate is not one the system trusts
        assert not result.ok and result.error is not None and "TLS" in result.error
    else:
        assert not result.ok
        assert result.error == "TLS required (tls=true) but 127.0.0.1:3306 does not offer TLS"


async def test_tls_skip_verify_encrypts_or_fails_clearly(have_ssl: bool) -> None:
    result = await probe(target(tls="skip-verify"), timeout=TIMEOUT)
    if have_ssl:
        assert result.ok, result.error
        assert result.details["tls"] != "off"
    else:
        assert not result.ok
        assert (
            result.error == "TLS required (tls=skip-verify) but 127.0.0.1:3306 does not offer TLS"
        )


async def test_tls_preferred_falls_back_to_plain_text(have_ssl: bool) -> None:
    result = await probe(target(tls="preferred"), timeout=TIMEOUT)
    assert result.ok, result.error
    assert (result.details["tls"] != "off") is have_ssl


async def test_a_closed_port_is_refused() -> None:
    port = free_port()
    result = await probe(target(port=port), timeout=TIMEOUT)
    assert not result.ok
    assert result.error == f"connection refused by 127.0.0.1:{port} (nothing listens on that port?)"


async def test_a_silent_server_times_out() -> None:
    async with silent_server() as port:
        result = await probe(target(port=port), timeout=SHORT_TIMEOUT)
    assert not result.ok
    assert result.error == f"timed out after {SHORT_TIMEOUT:g} s waiting for 127.0.0.1:{port}"
