"""What the tests of the locations' administration share."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select

from watchpost.locations.models import SERVER_LOCATION, Location


async def server_location(app: FastAPI) -> Location:
    """The server's own location: the one migration 0038 seeds, made again where the test
    database was emptied (the PostgreSQL tests' reset deletes every row)."""
    ctx = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        found: Location | None = await session.scalar(
            select(Location).where(Location.is_server.is_(True))
        )
        if found is None:
            found = Location(
                name=SERVER_LOCATION, region="us", is_server=True, created_at=ctx.clock.now()
            )
            session.add(found)
        return found
