"""status pages, their sections and their resources"""

from __future__ import annotations

from watchpost.db.migrations import shapes

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    shapes.create_team_table(
        "status_pages",
        shapes.string("company_name", 255),
        shapes.text("company_url", nullable=True),
        shapes.text("contact_url", nullable=True),
        shapes.text("logo_url", nullable=True),
        shapes.string("timezone", 64),
        shapes.string("subdomain", 63),
        shapes.string("custom_domain", 255, nullable=True),
        shapes.integer("history"),
        shapes.integer("min_incident_length"),
        shapes.text("announcement", nullable=True),
        shapes.boolean("password_enabled"),
        shapes.text("password_encrypted", nullable=True),
        shapes.boolean("hide_from_search_engines"),
        shapes.string("theme", 16),
        shapes.string("layout", 16),
        shapes.string("design", 16),
        shapes.json("navigation_links"),
        *shapes.object_columns(),
        uniques=["custom_domain", "subdomain"],
    )

    shapes.create_team_table(
        "status_page_sections",
        shapes.reference("status_page_id"),
        shapes.string("name", 255),
        shapes.integer("position"),
        shapes.boolean("fixed_position"),
        *shapes.object_columns(),
        shapes.foreign_key(
            "status_page_sections", "status_page_id", "status_pages", ondelete="CASCADE"
        ),
        indexes=("status_page_id", "team_id"),
    )

    shapes.create_team_table(
        "status_page_resources",
        shapes.reference("status_page_id"),
        shapes.reference("status_page_section_id"),
        shapes.string("resource_type", 32),
        shapes.reference("resource_id", nullable=True),
        shapes.string("public_name", 255, nullable=True),
        shapes.text("explanation"),
        shapes.string("widget_type", 32),
        shapes.integer("position"),
        shapes.boolean("fixed_position"),
        shapes.string("mark_as_down_for", 32),
        shapes.json("mark_as_down_metadata_rule", nullable=True),
        shapes.string("mark_as_degraded_for", 32),
        shapes.json("mark_as_degraded_metadata_rule", nullable=True),
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
        indexes=("status_page_id", "status_page_section_id", "team_id"),
    )


def downgrade() -> None:
    shapes.drop_table(
        "status_page_resources", "status_page_id", "status_page_section_id", "team_id"
    )
    shapes.drop_table("status_page_sections", "status_page_id", "team_id")
    shapes.drop_table("status_pages", "team_id")
