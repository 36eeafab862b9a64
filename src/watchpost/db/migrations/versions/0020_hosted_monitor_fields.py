"""the hosted API's remaining monitor and heartbeat attributes: critical_alert, the
expiration policy, proxy, IP version, Playwright scenario, port lists, server time zone"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

from watchpost.db.migrations import shapes

revision = "0020"
down_revision = "0019"

CHECKED = ("monitors", "heartbeats")


def _monitor_columns() -> list[sa.Column[Any]]:
    return [
        shapes.reference("expiration_policy_id", nullable=True),
        shapes.string("port_list", 64, nullable=True),
        shapes.string("proxy_host", 255, nullable=True),
        shapes.integer("proxy_port", nullable=True),
        shapes.string("ip_version", 8, nullable=True),
        shapes.text("playwright_script", nullable=True),
        shapes.json("environment_variables", nullable=True),
    ]


def upgrade() -> None:
    for table in CHECKED:
        op.add_column(
            table,
            sa.Column("critical_alert", sa.Boolean(), nullable=False, server_default=sa.false()),
        )
    for column in _monitor_columns():
        op.add_column("monitors", column)
    op.add_column("heartbeats", shapes.string("server_timezone", 64, nullable=True))


def downgrade() -> None:
    op.drop_column("heartbeats", "server_timezone")
    for column in reversed(_monitor_columns()):
        op.drop_column("monitors", column.name)
    for table in CHECKED:
        op.drop_column(table, "critical_alert")
