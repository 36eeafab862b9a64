"""What the pickers' tests share: a team's monitors and members made by the thousand in a
few INSERTs (the API would take minutes), and the id of an offered item by its label."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import quote

from fastapi import FastAPI
from sqlalchemy import insert, select

from watchpost.monitors.models import Monitor
from watchpost.teams.models import Membership, User

TEXTS = (
    "a" * 5000,
    "%",
    "_",
    "\\",
    "\x00",
    "a\x00b",
    "%25",
    "'; DROP TABLE monitors; --",
    "<script>alert(1)</script>",
    " ",
)
HOSTILE = (*(quote(text, safe="") for text in TEXTS), "%ED%A0%80", "%FF", "&find=", "")
"""`?find=` values, URL-encoded (a lone surrogate, a byte that is no UTF-8), a page must
answer with 200 (never a 500)."""


async def many_monitors(app: FastAPI, team_id: int, count: int) -> None:
    """Monitors "Service 0001" … of team_id (URL https://service-<n>.example.com/health)."""
    now = app.state.ctx.clock.now()
    rows = [
        {
            "team_id": team_id,
            "monitor_type": "status",
            "url": f"https://service-{n}.example.com/health",
            "pronounceable_name": f"Service {n:04}",
            "check_frequency": 180,
            "confirmation_period": 0,
            "recovery_period": 180,
            "request_timeout": 30,
            "status": "up",
            "check_status": "up",
            "next_check_at": now + timedelta(days=1),
            "created_at": now,
            "updated_at": now,
        }
        for n in range(1, count + 1)
    ]
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        for start in range(0, len(rows), 500):
            await session.execute(insert(Monitor), rows[start : start + 500])


async def many_members(app: FastAPI, team_id: int, count: int) -> None:
    """Responders "Member 0001" (member0001@example.com) … of team_id."""
    now = app.state.ctx.clock.now()
    async with app.state.ctx.db.write_sessions() as session, session.begin():
        users = [
            {"email": f"member{n:04}@example.com", "name": f"Member {n:04}", "created_at": now}
            for n in range(1, count + 1)
        ]
        for start in range(0, len(users), 500):
            await session.execute(insert(User), users[start : start + 500])
        ids = list(
            await session.scalars(select(User.id).where(User.email.like("member%@example.com")))
        )
        members = [
            {"team_id": team_id, "user_id": i, "role": "responder", "created_at": now} for i in ids
        ]
        for start in range(0, len(members), 500):
            await session.execute(insert(Membership), members[start : start + 500])


def value_of(html: str, label: str) -> str:
    """The value of the checkbox labelled `label` (its label follows it)."""
    found = re.search(r'value="([^"]+)"[^>]*>\s*<label for="[^"]+">' + re.escape(label) + "<", html)
    assert found is not None, label
    return found.group(1)


def option_of(html: str, label: str) -> str:
    """The value of the option labelled `label`."""
    found = re.search(r'<option value="([^"]+)"[^>]*>' + re.escape(label) + "<", html)
    assert found is not None, label
    return found.group(1)
