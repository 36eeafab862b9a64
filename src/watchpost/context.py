"""What a running Watchpost shares between requests: settings, database, clock, secrets, the
logs store."""

from __future__ import annotations

from dataclasses import dataclass, field

from watchpost import destinations
from watchpost.clock import Clock, SystemClock
from watchpost.crypto import SecretBox, load_or_create_key
from watchpost.db.session import Database, create_engine
from watchpost.logs.store import LogStore, open_store
from watchpost.ratelimit import RateLimits
from watchpost.settings import Settings


@dataclass
class AppContext:
    settings: Settings
    db: Database
    clock: Clock
    box: SecretBox
    limits: RateLimits
    logs: LogStore = field(init=False)
    """Log events and metrics (WATCHPOST_LOGS_URL): opened on first use, closed with the app
    (`await ctx.logs.close()`); a test may put another store here."""

    def __post_init__(self) -> None:
        self.logs = open_store(self.settings)

    @classmethod
    def build(cls, settings: Settings, clock: Clock | None = None) -> AppContext:
        sqlite_path = settings.sqlite_path()
        key_dir = sqlite_path.parent if sqlite_path is not None else settings.data_dir
        if sqlite_path is not None:
            sqlite_path.parent.mkdir(parents=True, exist_ok=True)
        # One destination policy per process: validation and the probes' resolver read it.
        destinations.configure(settings.denied_networks)
        key = load_or_create_key(settings.secret_key, key_dir)
        return cls(
            settings=settings,
            db=Database(create_engine(settings.async_database_url)),
            clock=clock or SystemClock(),
            box=SecretBox(key),
            limits=RateLimits.per_minute(
                settings.rate_limit_per_minute,
                settings.ping_rate_limit_per_minute,
                settings.login_per_minute_address,
                settings.login_per_minute_account,
            ),
        )
