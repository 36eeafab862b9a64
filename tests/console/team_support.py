"""What the team pages' tests share: a signed-in client per person, and reading back the
memberships, tokens and audit entries the pages changed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.console import add_person, csrf, sign_in
from watchpost.audit.models import AuditEvent
from watchpost.people import accounts
from watchpost.teams.models import ApiToken, Team


@asynccontextmanager
async def person(
    app: FastAPI, email: str, role: str, *, team: str = "acme", name: str | None = None
) -> AsyncIterator[tuple[httpx.AsyncClient, str]]:
    """A client signed in as a new member of team with role, and its CSRF token."""
    await add_person(app, email=email, role=role, team=team, name=name or email.split("@")[0])
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        answer = await sign_in(client, email)
        assert answer.status_code == 303, answer.text[:300]
        yield client, await csrf(client)


async def user_id(app: FastAPI, email: str) -> int:
    async with app.state.ctx.db.read_sessions() as db:
        found = await accounts.by_email(db, email)
        assert found is not None
        return found.id


async def role_of(app: FastAPI, email: str, team: str = "acme") -> str | None:
    async with app.state.ctx.db.read_sessions() as db:
        found = await accounts.by_email(db, email)
        team_id = await db.scalar(select(Team.id).where(Team.name == team))
        if found is None or team_id is None:
            return None
        return await accounts.role_in(db, user_id=found.id, team_id=team_id)


async def audit_entries(app: FastAPI, team: str = "acme") -> list[AuditEvent]:
    """The team's audit entries, oldest first."""
    async with app.state.ctx.db.read_sessions() as db:
        team_id = await db.scalar(select(Team.id).where(Team.name == team))
        found = await db.scalars(
            select(AuditEvent).where(AuditEvent.team_id == team_id).order_by(AuditEvent.id)
        )
        return list(found)


async def actions(app: FastAPI, team: str = "acme") -> list[str]:
    """The team's audit actions but sign-ins, oldest first."""
    return [e.action for e in await audit_entries(app, team) if e.action != "session.created"]


async def tokens(app: FastAPI) -> list[ApiToken]:
    async with app.state.ctx.db.read_sessions() as db:
        return list(await db.scalars(select(ApiToken).order_by(ApiToken.id)))
