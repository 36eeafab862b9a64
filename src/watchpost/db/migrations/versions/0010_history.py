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
    return [shapes.string("subject_type", 20), shapes.reference("subject_id")]


def upgrade() -> None:
    shapes.create_team_table(
        "check_last_observations",
        *subject_columns(),
        shapes.moment("at"),
        shapes.string("state", 12),
        shapes.floating("valid_for_s"),
        shapes.floating("latency_ms", nullable=True),
        shapes.text("error", nullable=True),
        shapes.reference("team_id"),
        primary=("subject_type", "subject_id"),
    )

    shapes.create_team_table(
        "check_results",
        *subject_columns(),
        shapes.moment("at"),
        shapes.string("state", 12),
        shapes.floating("latency_ms", nullable=True),
        shapes.text("error", nullable=True),
        shapes.id_column(),
        shapes.reference("team_id"),
        indexes=(),  # ix_check_results_subject_at is not named after its columns
    )
    with op.batch_alter_table("check_results", schema=None) as batch_op:
        batch_op.create_index("ix_check_results_at", ["at"], unique=False)
        batch_op.create_index(
            "ix_check_results_subject_at", ["subject_type", "subject_id", "at"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_check_results_team_id"), ["team_id"], unique=False)

    shapes.create_team_table(
        "check_rollups",
        *subject_columns(),
        shapes.string("granularity", 4),
        shapes.moment("period_start"),
        shapes.floating("up_s"),
        shapes.floating("down_s"),
        shapes.floating("maintenance_s"),
        shapes.integer("checks"),
        shapes.integer("failures"),
        shapes.floating("latency_sum"),
        shapes.integer("latency_count"),
        shapes.floating("latency_min", nullable=True),
        shapes.floating("latency_max", nullable=True),
        shapes.reference("team_id"),
        primary=("subject_type", "subject_id", "granularity", "period_start"),
        indexes=(("granularity", "period_start"), "team_id"),
    )


def downgrade() -> None:
    shapes.drop_table("check_rollups", ("granularity", "period_start"), "team_id")
    with op.batch_alter_table("check_results", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_check_results_team_id"))
        batch_op.drop_index("ix_check_results_subject_at")
        batch_op.drop_index("ix_check_results_at")

    op.drop_table("check_results")
    shapes.drop_table("check_last_observations", "team_id")
