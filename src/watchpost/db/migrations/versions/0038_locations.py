"""Checks from many places: locations, probe tokens, each location's checks of a monitor

`locations` is seeded with the server's own location, `local` (region us). Monitors gain the
locations they name, their confirmation rule, whether the server checks them itself
(`checked_here`, true for every existing monitor), whether their verdict is made from several
locations (`located`) and since when they are degraded. Raw results say which location ran
them (`check_results.location_id`, null: the server); collector targets may be checked by a
location's agents (`collector_targets.location_id`).
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0038"
down_revision = "0037"

CHECKS = "location_checks"
CHECK_INDEXES = ("monitor_id", ("location_id", "next_check_at"))


def upgrade() -> None:
    locations = op.create_table(
        "locations",
        shapes.id_column(),
        shapes.string("name", 64),
        shapes.string("region", 2),
        shapes.boolean("private"),
        shapes.reference("team_id", nullable=True),
        shapes.boolean("is_server"),
        shapes.integer("offline_after_s"),
        shapes.moment("created_at"),
        shapes.moment("last_seen_at", nullable=True),
        shapes.moment("offline_since", nullable=True),
        shapes.string("last_agent", 255, nullable=True),
        shapes.primary_key("locations"),
        shapes.unique("locations", "name"),
        shapes.foreign_key("locations", "team_id", "teams", ondelete="CASCADE"),
        sqlite_autoincrement=True,
    )
    shapes.create_indexes("locations", "team_id")
    op.bulk_insert(
        locations,
        [
            {
                "name": "local",
                "region": "us",
                "private": False,
                "team_id": None,
                "is_server": True,
                "offline_after_s": 90,
                "created_at": datetime.now(UTC),
            }
        ],
    )
    op.create_table(
        "probe_tokens",
        shapes.id_column(),
        shapes.reference("location_id"),
        shapes.string("prefix", 32),
        shapes.string("token_hash", 64),
        shapes.string("name", 255, nullable=True),
        shapes.moment("created_at"),
        shapes.moment("revoked_at", nullable=True),
        shapes.moment("last_used_at", nullable=True),
        shapes.primary_key("probe_tokens"),
        shapes.unique("probe_tokens", "token_hash"),
        shapes.foreign_key("probe_tokens", "location_id", "locations", ondelete="CASCADE"),
        sqlite_autoincrement=True,
    )
    shapes.create_indexes("probe_tokens", "location_id", "prefix")
    op.create_table(
        CHECKS,
        shapes.id_column(),
        shapes.reference("team_id"),
        shapes.reference("location_id"),
        shapes.reference("monitor_id"),
        shapes.moment("next_check_at", nullable=True),
        shapes.string("lease_owner", 128, nullable=True),
        shapes.moment("lease_expires_at", nullable=True),
        shapes.moment("last_checked_at", nullable=True),
        shapes.boolean("last_ok", nullable=True),
        shapes.text("last_error", nullable=True),
        shapes.floating("last_latency_ms", nullable=True),
        shapes.primary_key(CHECKS),
        shapes.unique(CHECKS, "monitor_id", "location_id"),
        shapes.team_foreign_key(CHECKS),
        shapes.foreign_key(CHECKS, "location_id", "locations", ondelete="CASCADE"),
        shapes.foreign_key(CHECKS, "monitor_id", "monitors", ondelete="CASCADE"),
        sqlite_autoincrement=True,
    )
    shapes.create_indexes(CHECKS, "team_id", *CHECK_INDEXES)
    # ADD COLUMN with constant defaults: in place on both databases.
    op.add_column(
        "monitors", sa.Column("locations", sa.JSON(), nullable=False, server_default="[]")
    )
    op.add_column(
        "monitors",
        sa.Column("confirmation_rule", sa.String(12), nullable=False, server_default="majority"),
    )
    op.add_column("monitors", shapes.integer("confirmation_locations", nullable=True))
    op.add_column(
        "monitors",
        sa.Column("checked_here", sa.Boolean(), nullable=False, server_default=sa.true()),
    )
    op.add_column(
        "monitors", sa.Column("located", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.add_column("monitors", shapes.moment("degraded_since", nullable=True))
    op.add_column("check_results", shapes.reference("location_id", nullable=True))
    with op.batch_alter_table(
        "collector_targets", table_kwargs={"sqlite_autoincrement": True}
    ) as batch:
        batch.add_column(shapes.reference("location_id", nullable=True))
        batch.create_foreign_key(
            op.f("fk_collector_targets_location_id_locations"),
            "locations",
            ["location_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch.create_index(op.f("ix_collector_targets_location_id"), ["location_id"])


def downgrade() -> None:
    with op.batch_alter_table(
        "collector_targets", table_kwargs={"sqlite_autoincrement": True}
    ) as batch:
        batch.drop_index(op.f("ix_collector_targets_location_id"))
        batch.drop_constraint(
            op.f("fk_collector_targets_location_id_locations"), type_="foreignkey"
        )
        batch.drop_column("location_id")
    # DROP COLUMN in place on both databases (SQLite >= 3.35): a batch rebuild of monitors
    # would lose its row_counts triggers.
    for table, column in (
        ("check_results", "location_id"),
        ("monitors", "degraded_since"),
        ("monitors", "located"),
        ("monitors", "checked_here"),
        ("monitors", "confirmation_locations"),
        ("monitors", "confirmation_rule"),
        ("monitors", "locations"),
    ):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    shapes.drop_table(CHECKS, "team_id", *CHECK_INDEXES)
    shapes.drop_table("probe_tokens", "location_id", "prefix")
    shapes.drop_table("locations", "team_id")
