"""People's phone numbers: a JSON list of E.164 numbers per person (`users.phone_numbers`),
where SMS and calls telling that person go; every person starts with none.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0036"
down_revision = "0035"


def upgrade() -> None:
    # ADD COLUMN with a constant default: in place on both databases (no SQLite rebuild).
    op.add_column(
        "users",
        sa.Column("phone_numbers", sa.JSON(), nullable=False, server_default=sa.text("'[]'")),
    )


def downgrade() -> None:
    with op.batch_alter_table("users", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_column("phone_numbers")
