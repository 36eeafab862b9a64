"""Parsers of the settings' values that are more than a number or a string (URLs, lists of
pairs), kept apart from the Settings class: each is used by its setting's validator, so a
typo fails at start, and by the code that reads the value."""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlsplit

from watchpost.people.roles import ROLES


def parse_source_quotas(text: str) -> dict[int, int]:
    """WATCHPOST_LOGS_SOURCE_QUOTAS: `source_id=events` pairs, comma-separated."""
    quotas: dict[int, int] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        source, equals, events = part.partition("=")
        source, events = source.strip(), events.strip()
        if not (equals and source.isdigit() and events.isdigit()):
            raise ValueError(
                f"WATCHPOST_LOGS_SOURCE_QUOTAS: {part.strip()!r} is not source_id=events "
                "(whole numbers)"
            )
        quotas[int(source)] = int(events)
    return quotas


OIDC_ROLES = tuple(role.value for role in reversed(ROLES))  # the console's roles, most first
OidcTeams = dict[str, tuple[tuple[str, str], ...]]
"""E-mail domain (lower case) → the (team name, role) pairs its people get."""


def _is_domain(text: str) -> bool:
    """A DNS name of two or more labels (letters, digits, inner hyphens), as e-mail has."""
    labels = text.split(".")
    return len(labels) > 1 and all(
        0 < len(label) <= 63
        and label.isascii()
        and label.replace("-", "").isalnum()
        and not label.startswith("-")
        and not label.endswith("-")
        for label in labels
    )


def parse_oidc_teams(text: str) -> OidcTeams:
    """WATCHPOST_OIDC_TEAMS: `domain=Team:role` pairs, comma-separated.

    The role is after the last colon, so a team name may hold a colon but not a comma.
    """
    teams: dict[str, list[tuple[str, str]]] = {}
    for part in text.split(","):
        entry = part.strip()
        if not entry:
            continue
        domain, equals, grant = entry.partition("=")
        team, colon, role = grant.rpartition(":")
        domain, team, role = domain.strip().lower(), team.strip(), role.strip().lower()
        if not (equals and colon and domain and team and role):
            raise ValueError(f"WATCHPOST_OIDC_TEAMS: {entry!r} is not domain=Team:role")
        if not _is_domain(domain):
            raise ValueError(f"WATCHPOST_OIDC_TEAMS: {domain!r} is not an e-mail domain")
        if role not in OIDC_ROLES:
            raise ValueError(
                f"WATCHPOST_OIDC_TEAMS: {role!r} is not a role ({', '.join(OIDC_ROLES)})"
            )
        grants = teams.setdefault(domain, [])
        if any(named.casefold() == team.casefold() for named, _ in grants):
            raise ValueError(f"WATCHPOST_OIDC_TEAMS: {domain} names team {team!r} twice")
        grants.append((team, role))
    return {domain: tuple(grants) for domain, grants in teams.items()}


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    username: str | None
    password: str | None
    use_tls: bool
    """TLS from the start (smtps)."""
    start_tls: bool | None
    """STARTTLS: True required, False never, None when the server offers it."""


def parse_smtp_url(url: str) -> SmtpServer:
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ValueError(
            "WATCHPOST_SMTP_URL must be smtp://[user:password@]host[:port] or smtps://…"
        )
    flag = dict(parse_qsl(parts.query)).get("starttls", "").lower()
    if flag not in ("", "true", "false"):
        raise ValueError("starttls must be true or false")
    use_tls = parts.scheme == "smtps"
    return SmtpServer(
        host=parts.hostname,
        port=parts.port or (465 if use_tls else 587),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        use_tls=use_tls,
        start_tls=None if not flag or use_tls else flag == "true",
    )


@dataclass(frozen=True)
class ClickHouseServer:
    host: str
    port: int
    username: str
    password: str
    database: str
    secure: bool


def parse_clickhouse_url(url: str) -> ClickHouseServer:
    """clickhouse://user:password@host:port/database (HTTP; clickhouses:// for HTTPS)."""
    parts = urlsplit(url)
    if parts.scheme not in ("clickhouse", "clickhouses") or not parts.hostname:
        raise ValueError(
            "WATCHPOST_LOGS_URL must be clickhouse://[user:password@]host[:port][/database] "
            "or clickhouses://…"
        )
    secure = parts.scheme == "clickhouses"
    database = unquote(parts.path.strip("/")) or "default"
    if not database.replace("_", "").isalnum():
        raise ValueError("the ClickHouse database name may hold only letters, digits and _")
    return ClickHouseServer(
        host=parts.hostname,
        port=parts.port or (8443 if secure else 8123),
        username=unquote(parts.username) if parts.username else "default",
        password=unquote(parts.password) if parts.password else "",
        database=database,
        secure=secure,
    )


def parse_delays(text: str) -> tuple[float, ...]:
    """'0,5,300' → (0.0, 5.0, 300.0); at least one delay, none negative."""
    try:
        delays = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise ValueError("must be comma-separated seconds, e.g. 0,5,300") from None
    if any(not math.isfinite(delay) or delay < 0 for delay in delays):
        raise ValueError("every delay must be 0 or more seconds")
    return delays


def to_async_url(url: str) -> str:
    """Map the URL forms people write to the async drivers Watchpost uses.

    Every SQLite form goes to `sqlite+watchpost` (db/sqlite_inline.py); PostgreSQL to psycopg.
    """
    scheme, separator, rest = url.partition("://")
    if not separator:
        raise ValueError(f"not a database URL: {url.split(':', 1)[0]!r}")
    if scheme in ("sqlite", "sqlite+aiosqlite", "sqlite+pysqlite", "sqlite+watchpost"):
        return f"sqlite+watchpost://{rest}"
    if scheme in ("postgres", "postgresql", "postgresql+psycopg", "postgresql+psycopg2"):
        return f"postgresql+psycopg://{rest}"
    raise ValueError(f"unsupported database URL scheme: {scheme!r}")
