"""Alembic environment: runs migrations on a synchronous connection to the configured URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool, text

from watchpost.db.registry import all_metadata

config = context.config
LOCK_KEY = 0x77617463  # "watc": the advisory lock every Watchpost migration takes
target_metadata = all_metadata()


def run_migrations_online() -> None:
    url = config.get_main_option("sqlalchemy.url")
    assert url is not None
    # hide_parameters: no error text or log line shows a statement's parameters.
    engine = create_engine(url, poolclass=pool.NullPool, hide_parameters=True)
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            compare_type=True,
        )
        with context.begin_transaction():
            if connection.dialect.name == "postgresql":
                # Processes started together on one database (several workers) take turns:
                # the lock lasts until this transaction (every migration) commits, and the
                # next one then finds the schema current. SQLite: see migrate.upgrade().
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()
