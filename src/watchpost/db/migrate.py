"""Applying the Alembic migrations (used by `watchpost serve`, `watchpost migrate`, tests)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def sync_url(async_url: str) -> str:
    """Migrations run synchronously: the same database through its sync driver."""
    scheme, _, rest = async_url.partition("://")
    if scheme.startswith("sqlite"):
        return f"sqlite://{rest}"
    return async_url  # postgresql+psycopg is both sync and async


def alembic_config(async_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", sync_url(async_url).replace("%", "%%"))
    return config


def upgrade(async_url: str) -> None:
    """Bring the database to the newest schema."""
    command.upgrade(alembic_config(async_url), "heads")
