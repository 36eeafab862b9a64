"""Configuration: one settings class, read from WATCHPOST_* environment variables."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from watchpost.destinations import parse_networks

DEFAULT_DATA_DIR = Path("data")


def _at_least_1(default: float, description: str) -> Any:
    """A setting of 1 or more."""
    return Field(default=default, ge=1, description=description)


def _positive(default: float, description: str) -> Any:
    """A setting above 0."""
    return Field(default=default, gt=0, description=description)


def _per_minute(default: int, description: str) -> Any:
    """A rate limit: requests a minute, 0 (no limit) to a million."""
    return Field(default=default, ge=0, le=1_000_000, description=description)


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


class Settings(BaseSettings):
    """Every setting Watchpost reads. Names are a contract: see the README."""

    model_config = SettingsConfigDict(env_prefix="WATCHPOST_", extra="ignore")

    database_url: str = Field(
        default="",
        description="SQLAlchemy or libpq-style URL; empty means a SQLite file in ./data/.",
    )
    public_url: str | None = Field(
        default=None, description="Base URL for links; when unset, links follow the request."
    )
    secret_key: str | None = Field(
        default=None,
        description="Key that encrypts stored probe credentials; generated on first start.",
    )
    ingesting_host: str | None = Field(
        default=None,
        description="Host name that sources send logs to; defaults to the public host. A URL "
        "(http://host:port) also names the scheme of the sources' ingesting_url.",
    )
    data_dir: Path = Field(
        default=DEFAULT_DATA_DIR, description="Folder for the SQLite file and generated key."
    )
    logs_url: str = Field(
        default="",
        description="Where log events and metrics are kept: empty for the embedded store (DuckDB "
        "files in <data_dir>/logs/, opened by the serving process), or "
        "clickhouse://user:password@host:8123/database (clickhouses:// for HTTPS).",
    )
    logs_memory_limit_mb: int = Field(
        default=0,
        ge=0,
        description="Memory the embedded logs store (DuckDB) may use for its caches and "
        "queries, in MiB; 0: 1 GiB.",
    )
    log_level: str = "info"
    target_check_interval: int = _at_least_1(
        60, "Seconds between two checks of a collector target."
    )
    target_check_timeout: float = _positive(10.0, "Seconds one collector target check may take.")
    engine_concurrency: int = _at_least_1(500, "Checks one engine process runs at the same time.")
    engine_claim_batch: int = _at_least_1(
        500, "Most due checks claimed in one database transaction."
    )
    engine_write_batch: int = _at_least_1(250, "Most results written in one database transaction.")
    engine_flush_interval: float = _positive(
        0.2, "Seconds a finished result waits to join a batch."
    )
    engine_poll_interval: float = _positive(1.0, "Longest sleep between two looks for due checks.")
    engine_lease_margin: float = _at_least_1(
        15.0,
        "Seconds a check's lease lasts from its claim or last renewal; a live worker renews its "
        "leases every third of it, so only a dead worker's expire, and another worker takes "
        "those checks over.",
    )
    rate_limit_per_minute: int = _per_minute(
        1200, "Requests a minute one API token may send (all at once, or spread); 0: no limit."
    )
    ping_rate_limit_per_minute: int = _per_minute(
        6000,
        "Requests a minute one client address may send to the routes without an API token "
        "(heartbeat pings); 0: no limit.",
    )
    logs_source_rate_limit_per_minute: int = _per_minute(
        30000, "Ingestion requests a minute one log source may send; 0: no limit."
    )
    logs_address_rate_limit_per_minute: int = _per_minute(
        30000, "Ingestion requests a minute one client address may send; 0: no limit."
    )
    logs_retention_delay: float = Field(
        default=60.0,
        ge=0,
        description="Seconds after start before the first logs retention round (then hourly): "
        "a server starting does not touch its stores at once.",
    )
    logs_daily_event_quota: int = Field(
        default=100_000_000,
        ge=0,
        description="Events one log source may send a UTC day (per process); past it 429 "
        "until the next day. 0: no quota.",
    )
    logs_source_quotas: str = Field(
        default="",
        description="Daily event quotas of given sources, instead of "
        "WATCHPOST_LOGS_DAILY_EVENT_QUOTA: `source_id=events` pairs, comma-separated "
        "(`12=5000000,15=0`; 0: no quota for that source).",
    )
    subscribe_rate_limit_per_minute: int = _per_minute(
        5, "Status page sign-ups a minute from one client address; 0: no limit."
    )
    subscribe_page_rate_limit_per_minute: int = _per_minute(
        60, "Sign-ups a minute to one status page, from everyone; 0: no limit."
    )
    max_subscribers_per_page: int = Field(
        default=10_000,
        ge=1,
        le=1_000_000,
        description="Subscribers (confirmed or not) one status page holds.",
    )

    status_page_domain: str | None = Field(
        default=None,
        description="Domain under which each status page also answers at "
        "{subdomain}.<this domain> (e.g. status.example.com); unset: only /status/{subdomain} "
        "and custom domains.",
    )
    status_page_login_per_minute: int = _per_minute(
        10, "Password attempts a minute one client address may make on status pages; 0: no limit."
    )

    delivery_retry_delays: str = Field(
        default="0,5,300,1800,7200,18000,36000,36000",
        description="Comma-separated seconds before each attempt of a webhook delivery: the "
        "first (0: at once), then one per retry; each retry's delay gets up to 10% of jitter. "
        "A delivery that failed them all is given up.",
    )
    header_timeout: float = Field(
        default=10.0,
        gt=0,
        description="Seconds a client has to send a request's head (request line and "
        "headers), from connecting or from the previous response; then it is disconnected.",
    )
    delivery_timeout: float = Field(
        default=15.0, gt=0, description="Seconds one webhook request may take."
    )
    delivery_concurrency: int = Field(
        default=200, ge=1, description="Webhook requests one process sends at the same time."
    )
    delivery_claim_batch: int = Field(
        default=200, ge=1, description="Most due deliveries claimed in one transaction."
    )
    delivery_poll_interval: float = Field(
        default=0.25, gt=0, description="Longest sleep between two looks for due deliveries."
    )
    delivery_disable_after: float = Field(
        default=5 * 86400,
        gt=0,
        description="Seconds a webhook may fail without a success before it is disabled.",
    )
    delivery_retention_days: int = Field(
        default=30, ge=1, description="Days delivery events and their outcomes are kept."
    )

    smtp_url: str | None = Field(
        default=None,
        description="SMTP server for alert e-mail: smtp://user:password@host:587 (STARTTLS "
        "when the server offers it; ?starttls=true requires it, ?starttls=false never) or "
        "smtps://… (TLS from the start). Unset: no e-mail is sent, and the delivery log says "
        "why.",
    )
    sms_url: str | None = Field(
        default=None,
        description="Apprise URL of the SMS service that tells people of incidents whose `sms` "
        "is true (e.g. twilio://SID:token@+15550001111/+15550002222, recipients included). "
        "Unset: nothing is sent, and the delivery log says why.",
    )
    call_url: str | None = Field(
        default=None,
        description="Apprise URL of the phone call service for incidents whose `call` is true. "
        "Unset: nothing is sent, and the delivery log says why.",
    )
    mail_from: str = Field(
        default="Watchpost <watchpost@localhost>", description="Sender of alert e-mail."
    )
    pagerduty_events_url: str = Field(
        default="https://events.pagerduty.com/v2/enqueue",
        description="PagerDuty's Events API v2 endpoint that PagerDuty integrations send to "
        "(EU accounts: https://events.eu.pagerduty.com/v2/enqueue).",
    )

    # The console's sign-in (watchpost/people, watchpost/console).
    session_idle_timeout: float = _positive(
        12 * 3600, "Seconds a console session may go unused before it ends (signed out)."
    )
    session_lifetime: float = _positive(
        14 * 86400, "Seconds a console session lasts at most, however often it is used."
    )
    login_per_minute_address: int = _per_minute(
        20, "Sign-in attempts a minute from one client address (0: no limit)."
    )
    login_per_minute_account: int = _per_minute(
        6, "Sign-in attempts a minute for one e-mail address, from anywhere (0: no limit)."
    )

    @field_validator("delivery_retry_delays")
    @classmethod
    def _delays(cls, value: str) -> str:
        parse_delays(value)  # a typo fails at start, not at the first delivery
        return value

    @field_validator("logs_source_quotas")
    @classmethod
    def _source_quotas(cls, value: str) -> str:
        parse_source_quotas(value)  # a typo fails at start, not at the first event
        return value

    @field_validator("logs_url")
    @classmethod
    def _logs_url(cls, value: str) -> str:
        if value:
            parse_clickhouse_url(value)  # a typo fails at start, not at the first event
        return value

    @field_validator("status_page_domain")
    @classmethod
    def _page_domain(cls, value: str | None) -> str | None:
        text = (value or "").strip().strip(".").lower()
        return text or None

    @field_validator("smtp_url")
    @classmethod
    def _smtp(cls, value: str | None) -> str | None:
        if value:
            parse_smtp_url(value)
        return value or None

    @cached_property
    def retry_delays(self) -> tuple[float, ...]:
        """delivery_retry_delays as numbers."""
        return parse_delays(self.delivery_retry_delays)

    denied_networks: str | None = Field(
        default=None,
        description="Comma-separated CIDRs that monitors, collector targets and webhooks may "
        "not point at, checked on create and change and again on the resolved address when a "
        "check connects. Unset: link-local and cloud metadata networks (169.254.0.0/16, "
        "fe80::/10, fd00:ec2::254/128); empty: none.",
    )

    @field_validator("denied_networks")
    @classmethod
    def _cidrs(cls, value: str | None) -> str | None:
        if value is not None:
            parse_networks(value)  # a typo fails at start, not at the first check
        return value

    @cached_property
    def async_database_url(self) -> str:
        """The database URL with the async driver Watchpost uses for its dialect."""
        return to_async_url(self.database_url or f"sqlite:///{self.data_dir / 'watchpost.db'}")

    @property
    def is_sqlite(self) -> bool:
        return self.async_database_url.startswith("sqlite")

    @property
    def public_base(self) -> str | None:
        """The public URL without a trailing slash, or None."""
        return self.public_url.rstrip("/") if self.public_url else None

    def sqlite_path(self) -> Path | None:
        """The file behind a SQLite URL (None for in-memory or other databases)."""
        if not self.is_sqlite:
            return None
        path = (
            self.async_database_url.split(":///", 1)[1] if ":///" in self.async_database_url else ""
        )
        path = path.split("?", 1)[0]
        if not path or path == ":memory:":
            return None
        return Path(path)

    def public_host(self) -> str | None:
        """Host name of the public URL, when one is configured."""
        if self.public_base is None:
            return None
        return urlsplit(self.public_base).hostname


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
