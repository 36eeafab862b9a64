"""status page groups; every status page attribute of the hosted API; page passwords hashed

Passwords stored before this revision were encrypted, not hashed: they cannot be turned into
hashes here (the key is not at hand). `password_encrypted` keeps them (never written again);
a page that had one keeps `password_enabled` until its password is set again.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0022"
down_revision = "0021"

FLAGS = (
    ("whitelabeled", False),
    ("subscribable", False),
    ("published", True),
    ("require_sso", False),
    ("automatic_reports", False),
    ("announcement_embed_visible", False),
)
TEXTS = (
    "dark_logo_url",
    "announcement_embed_link",
    "announcement_embed_css",
    "custom_css",
    "custom_javascript",
    "password_hash",
)


def upgrade() -> None:
    shapes.create_owned_table(
        "status_page_groups",
        shapes.string("name", 255),
        shapes.integer("sort_index", nullable=True),
        *shapes.object_columns(),
    )
    for name, default in FLAGS:
        op.add_column(
            "status_pages",
            sa.Column(
                name,
                sa.Boolean(),
                nullable=False,
                server_default=sa.true() if default else sa.false(),
            ),
        )
    for name in TEXTS:
        op.add_column("status_pages", shapes.text(name, nullable=True))
    op.add_column("status_pages", shapes.string("google_analytics_id", 64, nullable=True))
    op.add_column(
        "status_pages", sa.Column("ip_allowlist", sa.JSON(), nullable=False, server_default="[]")
    )
    op.add_column("status_pages", shapes.reference("status_page_group_id", nullable=True))


def downgrade() -> None:
    for name in ("status_page_group_id", "ip_allowlist", "google_analytics_id", *TEXTS):
        op.drop_column("status_pages", name)
    for name, _ in reversed(FLAGS):
        op.drop_column("status_pages", name)
    shapes.drop_table("status_page_groups", "team_id")
