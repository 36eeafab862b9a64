"""What a running Watchpost shares between requests: settings, database, clock, secrets, the
logs store."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from watchpost import destinations
from watchpost.clock import Clock, SystemClock
from watchpost.crypto import SecretBox, load_or_create_key
from watchpost.db.session import Database, create_engine
from watchpost.logs.store import may_hold_events, open_store
from watchpost.ratelimit import RateLimits
from watchpost.settings import Settings

if TYPE_CHECKING:
    from watchpost.logs.store import LogStore


@dataclass
class AppContext:
    settings: Settings
    db: Database
    clock: Clock
    box: SecretBox
    limits: RateLimits
    _logs: LogStore | None = field(default=None, init=False, repr=False, compare=False)
    _opening_logs: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )

    @property
    def logs(self) -> LogStore:
        """Log events and metrics (WATCHPOST_LOGS_URL): built on first access, once (its
        engine's libraries load then, not at start), closed with the app (`close_logs`); a
        test may put another store here."""
        store = self._logs
        if store is None:
            with self._opening_logs:  # threads and the event loop alike: one store
                if self._logs is None:
                    self._logs = open_store(self.settings)
                store = self._logs
        return store

    @logs.setter
    def logs(self, store: LogStore) -> None:
        self._logs = store

    def logs_to_prune(self) -> LogStore | None:
        """The logs store when it may hold events (opened already, or stored before: see
        may_hold_events), for retention; None otherwise, and nothing is opened."""
        if self._logs is None and not may_hold_events(self.settings):
            return None
        return self.logs

    async def close_logs(self) -> None:
        """Closes the logs store if it was opened."""
        if self._logs is not None:
            await self._logs.close()

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
