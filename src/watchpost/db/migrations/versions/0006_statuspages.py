"""status pages, their sections and their resources"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_table(
        "status_pages",
        sa.Column("company_name", sa.String(length=255), nullable=False),
        sa.Column("company_url", sa.Text(), nullable=True),
        sa.Column("contact_url", sa.Text(), nullable=True),
        sa.Column("logo_url", sa.Text(), nullable=True),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("subdomain", sa.String(length=63), nullable=False),
        sa.Column("custom_domain", sa.String(length=255), nullable=True),
        sa.Column("history", sa.Integer(), nullable=False),
        sa.Column("min_incident_length", sa.Integer(), nullable=False),
        sa.Column("announcement", sa.Text(), nullable=True),
        sa.Column("password_enabled", sa.Boolean(), nullable=False),
        sa.Column("password_encrypted", sa.Text(), nullable=True),
        sa.Column("hide_from_search_engines", sa.Boolean(), nullable=False),
        sa.Column("theme", sa.String(length=16), nullable=False),
        sa.Column("layout", sa.String(length=16), nullable=False),
        sa.Column("design", sa.String(length=16), nullable=False),
        sa.Column("navigation_links", sa.JSON(), nullable=False),
        *shapes.object_columns(),
        shapes.team_foreign_key("status_pages"),
        shapes.primary_key("status_pages"),
        shapes.unique("status_pages", "custom_domain"),
        shapes.unique("status_pages", "subdomain"),
    )
    shapes.create_indexes("status_pages", "team_id")

    op.create_table(
        "status_page_sections",
        shapes.reference("status_page_id"),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("fixed_position", sa.Boolean(), nullable=False),
        *shapes.object_columns(),
        shapes.foreign_key(
            "status_page_sections", "status_page_id", "status_pages", ondelete="CASCADE"
        ),
        shapes.team_foreign_key("status_page_sections"),
        shapes.primary_key("status_page_sections"),
    )
    shapes.create_indexes("status_page_sections", "status_page_id", "team_id")

    op.create_table(
        "status_page_resources",
        shapes.reference("status_page_id"),
        shapes.reference("status_page_section_id"),
        sa.Column("resource_type", sa.String(length=32), nullable=False),
        shapes.reference("resource_id", nullable=True),
        sa.Column("public_name", sa.String(length=255), nullable=True),
        sa.Column("explanation", sa.Text(), nullable=False),
        sa.Column("widget_type", sa.String(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("fixed_position", sa.Boolean(), nullable=False),
        sa.Column("mark_as_down_for", sa.String(length=32), nullable=False),
        sa.Column("mark_as_down_metadata_rule", sa.JSON(), nullable=True),
        sa.Column("mark_as_degraded_for", sa.String(length=32), nullable=False),
        sa.Column("mark_as_degraded_metadata_rule", sa.JSON(), nullable=True),
        *shapes.object_columns(),
        shapes.foreign_key(
            "status_page_resources", "status_page_id", "status_pages", ondelete="CASCADE"
        ),
        shapes.foreign_key(
            "status_page_resources",
            "status_page_section_id",
            "status_page_sections",
            ondelete="CASCADE",
        ),
        shapes.team_foreign_key("status_page_resources"),
        shapes.primary_key("status_page_resources"),
    )
    shapes.create_indexes(
        "status_page_resources", "status_page_id", "status_page_section_id", "team_id"
    )


def downgrade() -> None:
    shapes.drop_table(
        "status_page_resources", "status_page_id", "status_page_section_id", "team_id"
    )
    shapes.drop_table("status_page_sections", "status_page_id", "team_id")
    shapes.drop_table("status_pages", "team_id")
