"""history: check results, their rollups and each subject's last observation"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0010"
down_revision = "0009"


def subject_columns() -> list[sa.Column[Any]]:
    """What was checked: a monitor, heartbeat or collector target."""
    return [
        sa.Column("subject_type", sa.String(length=20), nullable=False),
        shapes.reference("subject_id"),
    ]


def upgrade() -> None:
    op.create_table(
        "check_last_observations",
        *subject_columns(),
        shapes.moment("at"),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("valid_for_s", sa.Float(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        shapes.reference("team_id"),
        shapes.team_foreign_key("check_last_observations"),
        shapes.primary_key("check_last_observations", "subject_type", "subject_id"),
    )
    shapes.create_indexes("check_last_observations", "team_id")

    op.create_table(
        "check_results",
        *subject_columns(),
        shapes.moment("at"),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        shapes.id_column(),
        shapes.reference("team_id"),
        shapes.team_foreign_key("check_results"),
        shapes.primary_key("check_results"),
    )
    with op.batch_alter_table("check_results", schema=None) as batch_op:
        batch_op.create_index("ix_check_results_at", ["at"], unique=False)
        batch_op.create_index(
            "ix_check_results_subject_at", ["subject_type", "subject_id", "at"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_check_results_team_id"), ["team_id"], unique=False)

    op.create_table(
        "check_rollups",
        *subject_columns(),
        sa.Column("granularity", sa.String(length=4), nullable=False),
        shapes.moment("period_start"),
        sa.Column("up_s", sa.Float(), nullable=False),
        sa.Column("down_s", sa.Float(), nullable=False),
        sa.Column("maintenance_s", sa.Float(), nullable=False),
        sa.Column("checks", sa.Integer(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("latency_sum", sa.Float(), nullable=False),
        sa.Column("latency_count", sa.Integer(), nullable=False),
        sa.Column("latency_min", sa.Float(), nullable=True),
        sa.Column("latency_max", sa.Float(), nullable=True),
        shapes.reference("team_id"),
        shapes.team_foreign_key("check_rollups"),
        shapes.primary_key(
            "check_rollups", "subject_type", "subject_id", "granularity", "period_start"
        ),
    )
    shapes.create_indexes("check_rollups", ("granularity", "period_start"), "team_id")


def downgrade() -> None:
    shapes.drop_table("check_rollups", ("granularity", "period_start"), "team_id")
    with op.batch_alter_table("check_results", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_check_results_team_id"))
        batch_op.drop_index("ix_check_results_subject_at")
        batch_op.drop_index("ix_check_results_at")

    op.drop_table("check_results")
    shapes.drop_table("check_last_observations", "team_id")
