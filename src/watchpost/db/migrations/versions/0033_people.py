"""People sign in: one row per person, a role per team, console sessions, one-time links,
two-factor codes and the teams' audit log

`users` held one row per (team, e-mail). A person is now one row (`users`, unique e-mail)
and belongs to teams through `memberships` (a role each). Rows of several teams with the
same e-mail become one person: the oldest row is kept (its id is the person's id) and each
team it was in gets a membership. Every member there is becomes an `admin` of the team (none
was more or less than that before: a team had no roles); `watchpost user create --role
owner` names the owners.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0033"
down_revision = "0032"


def _rebuild() -> str:
    """SQLite rebuilds the table (keeping AUTOINCREMENT); PostgreSQL alters it in place."""
    return "always" if op.get_bind().dialect.name == "sqlite" else "auto"


def upgrade() -> None:
    op.create_table(
        "memberships",
        shapes.id_column(),
        shapes.reference("team_id"),
        shapes.reference("user_id"),
        shapes.string("role", 16),
        shapes.moment("created_at"),
        shapes.team_foreign_key("memberships"),
        shapes.foreign_key("memberships", "user_id", "users", ondelete="CASCADE"),
        shapes.primary_key("memberships"),
        shapes.unique("memberships", "team_id", "user_id"),
        sqlite_autoincrement=True,
    )
    shapes.create_indexes("memberships", "user_id")
    bind = op.get_bind()
    # The oldest row of each e-mail is the person; every row's team gets a membership.
    bind.execute(
        sa.text(
            "INSERT INTO memberships (team_id, user_id, role, created_at) "
            "SELECT u.team_id, (SELECT min(k.id) FROM users k WHERE k.email = u.email), "
            "'admin', u.created_at FROM users u ORDER BY u.id"
        )
    )
    bind.execute(
        sa.text(
            "DELETE FROM users WHERE id > (SELECT min(k.id) FROM users k WHERE k.email = users.email)"
        )
    )
    with op.batch_alter_table(
        "users", recreate=_rebuild(), table_kwargs={"sqlite_autoincrement": True}
    ) as batch:
        batch.drop_constraint("uq_users_team_id_email", type_="unique")
        batch.drop_index("ix_users_team_id")
        batch.drop_constraint("fk_users_team_id_teams", type_="foreignkey")
        batch.drop_column("team_id")
        batch.add_column(shapes.string("password_hash", 255, nullable=True))
        batch.add_column(shapes.text("totp_secret_encrypted", nullable=True))
        batch.add_column(shapes.moment("totp_enabled_at", nullable=True))
        batch.add_column(shapes.moment("password_changed_at", nullable=True))
        batch.create_unique_constraint("uq_users_email", ["email"])

    with op.batch_alter_table("teams") as batch:
        batch.add_column(
            sa.Column("require_two_factor", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(shapes.string("name", 255, nullable=True))
        batch.add_column(shapes.reference("created_by_id", nullable=True))

    op.create_table(
        "console_sessions",
        shapes.id_column(),
        shapes.reference("user_id"),
        shapes.string("token_hash", 64),
        shapes.reference("team_id", nullable=True),
        shapes.boolean("second_factor_done"),
        shapes.string("client", 255),
        shapes.moment("created_at"),
        shapes.moment("last_seen_at"),
        shapes.moment("expires_at"),
        shapes.moment("revoked_at", nullable=True),
        shapes.foreign_key("console_sessions", "user_id", "users", ondelete="CASCADE"),
        shapes.foreign_key("console_sessions", "team_id", "teams", ondelete="SET NULL"),
        shapes.primary_key("console_sessions"),
        shapes.unique("console_sessions", "token_hash"),
        sqlite_autoincrement=True,
    )
    shapes.create_indexes("console_sessions", "user_id")

    op.create_table(
        "one_time_links",
        shapes.id_column(),
        shapes.reference("user_id"),
        shapes.string("purpose", 16),
        shapes.string("token_hash", 64),
        shapes.reference("team_id", nullable=True),
        shapes.string("role", 16, nullable=True),
        shapes.moment("created_at"),
        shapes.moment("expires_at"),
        shapes.moment("used_at", nullable=True),
        shapes.foreign_key("one_time_links", "user_id", "users", ondelete="CASCADE"),
        shapes.foreign_key("one_time_links", "team_id", "teams", ondelete="CASCADE"),
        shapes.primary_key("one_time_links"),
        shapes.unique("one_time_links", "token_hash"),
        sqlite_autoincrement=True,
    )
    shapes.create_indexes("one_time_links", "user_id")

    op.create_table(
        "recovery_codes",
        shapes.id_column(),
        shapes.reference("user_id"),
        shapes.string("code_hash", 64),
        shapes.moment("used_at", nullable=True),
        shapes.foreign_key("recovery_codes", "user_id", "users", ondelete="CASCADE"),
        shapes.primary_key("recovery_codes"),
        sqlite_autoincrement=True,
    )
    shapes.create_indexes("recovery_codes", "user_id")

    op.create_table(
        "audit_events",
        shapes.id_column(),
        shapes.reference("team_id"),
        shapes.moment("at"),
        shapes.string("actor_kind", 16),
        shapes.reference("actor_id", nullable=True),
        shapes.string("actor", 320),
        shapes.string("action", 64),
        shapes.string("subject_type", 32, nullable=True),
        shapes.reference("subject_id", nullable=True),
        shapes.string("subject", 255, nullable=True),
        shapes.json("details"),
        shapes.string("address", 64, nullable=True),
        shapes.team_foreign_key("audit_events"),
        shapes.primary_key("audit_events"),
        sqlite_autoincrement=True,
    )
    shapes.create_indexes("audit_events", ("team_id", "id"))


def downgrade() -> None:
    shapes.drop_table("audit_events", ("team_id", "id"))
    shapes.drop_table("recovery_codes", "user_id")
    shapes.drop_table("one_time_links", "user_id")
    shapes.drop_table("console_sessions", "user_id")
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("created_by_id")
        batch.drop_column("name")
    with op.batch_alter_table("teams") as batch:
        batch.drop_column("require_two_factor")
    # Each person goes back to one row per team: the first membership keeps the person's
    # row and id, every other one gets a copy.
    bind = op.get_bind()
    with op.batch_alter_table(
        "users", recreate=_rebuild(), table_kwargs={"sqlite_autoincrement": True}
    ) as batch:
        batch.drop_constraint("uq_users_email", type_="unique")
        batch.drop_column("password_changed_at")
        batch.drop_column("totp_enabled_at")
        batch.drop_column("totp_secret_encrypted")
        batch.drop_column("password_hash")
        batch.add_column(shapes.reference("team_id", nullable=True))
    bind.execute(
        sa.text(
            "UPDATE users SET team_id = (SELECT m.team_id FROM memberships m "
            "WHERE m.user_id = users.id ORDER BY m.id LIMIT 1)"
        )
    )
    bind.execute(
        sa.text(
            "INSERT INTO users (team_id, email, name, created_at) "
            "SELECT m.team_id, u.email, u.name, m.created_at FROM memberships m "
            "JOIN users u ON u.id = m.user_id WHERE m.team_id <> u.team_id ORDER BY m.id"
        )
    )
    bind.execute(sa.text("DELETE FROM users WHERE team_id IS NULL"))
    with op.batch_alter_table(
        "users", recreate=_rebuild(), table_kwargs={"sqlite_autoincrement": True}
    ) as batch:
        batch.alter_column("team_id", existing_type=shapes.id_type(), nullable=False)
        batch.create_foreign_key(
            "fk_users_team_id_teams", "teams", ["team_id"], ["id"], ondelete="CASCADE"
        )
        batch.create_unique_constraint("uq_users_team_id_email", ["team_id", "email"])
        batch.create_index("ix_users_team_id", ["team_id"])
    shapes.drop_table("memberships", "user_id")
