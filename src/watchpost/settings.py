"""Configuration: one settings class, read from WATCHPOST_* environment variables."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from watchpost.destinations import parse_networks
from watchpost.setting_values import (
    OidcTeams,
    parse_clickhouse_url,
    parse_delays,
    parse_oidc_teams,
    parse_smtp_url,
    parse_source_quotas,
    to_async_url,
)

DEFAULT_DATA_DIR = Path("data")


def _at_least_1(default: float, description: str) -> Any:
    """A setting of 1 or more."""
    return Field(default=default, ge=1, description=description)


def _at_least_0(default: float, description: str) -> Any:
    """A setting of 0 or more."""
    return Field(default=default, ge=0, description=description)


def _unset(description: str) -> Any:
    """An optional setting, unset (None) unless given."""
    return Field(default=None, description=description)


def _positive(default: float, description: str) -> Any:
    """A setting above 0."""
    return Field(default=default, gt=0, description=description)


def _per_minute(default: int, description: str) -> Any:
    """A rate limit: requests a minute, 0 (no limit) to a million."""
    return Field(default=default, ge=0, le=1_000_000, description=description)


class Settings(BaseSettings):
    """Every setting Watchpost reads. Names are a contract: see the README."""

    model_config = SettingsConfigDict(env_prefix="WATCHPOST_", extra="ignore")

    database_url: str = Field(
        default="",
        description="SQLAlchemy or libpq-style URL; empty means a SQLite file in ./data/.",
    )
    public_url: str | None = _unset("Base URL for links; when unset, links follow the request.")
    secret_key: str | None = _unset(
        "Key that encrypts stored probe credentials; generated on first start.",
    )
    ingesting_host: str | None = _unset(
        "Host name that sources send logs to; defaults to the public host. A URL "
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
    logs_memory_limit_mb: int = _at_least_0(
        0,
        "Memory the embedded logs store (DuckDB) may use for its caches and "
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
        1.0, "Seconds a finished result waits to join a batch."
    )
    engine_poll_interval: float = _positive(1.0, "Longest sleep between two looks for due checks.")
    engine_claim_ahead: float = Field(
        default=1.0,
        ge=0,
        le=5,
        description="Seconds before their due time checks may be claimed (each still starts "
        "at its due time), so checks due close together share a claim and a write.",
    )
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
    logs_retention_delay: float = _at_least_0(
        60.0,
        "Seconds after start before the first logs retention round (then hourly): "
        "a server starting does not touch its stores at once.",
    )
    logs_daily_event_quota: int = _at_least_0(
        100_000_000,
        "Events one log source may send a UTC day (per process); past it 429 "
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

    status_page_domain: str | None = _unset(
        "Domain under which each status page also answers at "
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
    header_timeout: float = _positive(
        10.0,
        "Seconds a client has to send a request's head (request line and "
        "headers), from connecting or from the previous response; then it is disconnected.",
    )
    delivery_timeout: float = _positive(15.0, "Seconds one webhook request may take.")
    delivery_concurrency: int = _at_least_1(
        200, "Webhook requests one process sends at the same time."
    )
    delivery_claim_batch: int = _at_least_1(200, "Most due deliveries claimed in one transaction.")
    delivery_poll_interval: float = _positive(
        1.0,
        "Longest sleep between two looks for due deliveries; an event recorded by the same "
        "process wakes its worker at once.",
    )
    delivery_disable_after: float = _positive(
        5 * 86400,
        "Seconds a webhook may fail without a success before it is disabled.",
    )
    delivery_retention_days: int = _at_least_1(
        30, "Days delivery events and their outcomes are kept."
    )

    smtp_url: str | None = _unset(
        "SMTP server for alert e-mail: smtp://user:password@host:587 (STARTTLS "
        "when the server offers it; ?starttls=true requires it, ?starttls=false never) or "
        "smtps://… (TLS from the start). Unset: no e-mail is sent, and the delivery log says "
        "why.",
    )
    sms_url: str | None = _unset(
        "Apprise URL of the SMS service that tells people of incidents (e.g. "
        "twilio://SID:token@+15550001111). A person an escalation step texts gets it at their "
        "own phone numbers, which replace the URL's recipients; recipients in the URL are for "
        "people without a number and incidents whose own `sms` is true. Unset: nothing is "
        "sent, and the delivery log says why.",
    )
    call_url: str | None = _unset(
        "Apprise URL of the phone call service; people are called at their own "
        "numbers as with WATCHPOST_SMS_URL. Unset: nothing is sent, and the delivery log says "
        "why.",
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

    denied_networks: str | None = _unset(
        "Comma-separated CIDRs that monitors, collector targets and webhooks may "
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

    # Single sign-on with OpenID Connect (watchpost/console/oidc.py).
    oidc_issuer: str | None = _unset(
        "Issuer URL of the OpenID Connect provider people sign in with (its "
        "/.well-known/openid-configuration is read from there). Unset: no single sign-on.",
    )
    oidc_client_secret: SecretStr | None = _unset(
        "Client secret of Watchpost's registration at the provider; never logged nor shown.",
    )
    oidc_client_id: str | None = _unset("Client id of that registration.")
    oidc_teams: str = Field(
        default="",
        description="Which verified e-mail domains join which team with which role: "
        "`domain=Team:role` pairs, comma-separated (`example.com=Ops:responder, "
        "corp.example=Platform:admin`); a domain may be named once per team. Roles: owner, "
        "admin, responder, viewer. Empty: single sign-on adds nobody to a team.",
    )
    oidc_button: str = Field(
        default="Sign in with SSO", min_length=1, description="Label of the sign-in button."
    )

    @field_validator("oidc_issuer")
    @classmethod
    def _oidc_issuer(cls, value: str | None) -> str | None:
        text = (value or "").strip()
        parts = urlsplit(text)
        if text and (parts.scheme not in ("http", "https") or not parts.hostname or parts.query):
            raise ValueError("WATCHPOST_OIDC_ISSUER must be an http(s):// URL without a query")
        return text or None

    @field_validator("oidc_client_id")
    @classmethod
    def _oidc_client(cls, value: str | None, info: ValidationInfo) -> str | None:
        # Declared after the issuer and the secret, so both are read; checked here, not on the
        # secret, because a validation error prints the value it was given.
        secret = info.data.get("oidc_client_secret")
        value = (value or "").strip() or None
        if info.data.get("oidc_issuer") and not (value and secret and secret.get_secret_value()):
            raise ValueError(
                "WATCHPOST_OIDC_ISSUER needs WATCHPOST_OIDC_CLIENT_ID and "
                "WATCHPOST_OIDC_CLIENT_SECRET"
            )
        return value

    @field_validator("oidc_teams")
    @classmethod
    def _oidc_teams(cls, value: str) -> str:
        parse_oidc_teams(value)  # a typo fails at start, not at someone's first sign-in
        return value

    @cached_property
    def oidc_team_map(self) -> OidcTeams:
        """oidc_teams parsed: e-mail domain → (team name, role) pairs."""
        return parse_oidc_teams(self.oidc_teams)
