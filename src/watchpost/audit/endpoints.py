"""Routes of /api/v2/audit-log: the calling token's team's audit log, newest first."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.audit import service
from watchpost.audit.schemas import AuditEventAttributes
from watchpost.http.audited import ApiWrite
from watchpost.http.crud import Routes
from watchpost.http.deps import Caller, ReadDb
from watchpost.http.envelope import listing
from watchpost.http.pagination import Paging

router = APIRouter(prefix="/api/v2/audit-log", tags=["audit log"])
routes = Routes(router, AuditEventAttributes)


@routes.list(
    "",
    summary="List the audit log",
    description="What was done in the team, newest first: by whom (a person in the console, "
    "an API token, the command line), to what, when. Entries are never changed.",
)
async def list_audit_log(caller: Caller, db: ReadDb, paging: Paging) -> Response:
    page = await service.page(db, team_id=caller.team_id, paging=paging)
    return listing((service.render(event) for event in page.data), page.links)


async def record_api_write(db: AsyncSession, write: ApiWrite) -> None:
    """The audit entry of a token's successful write (routes.domain_routes' recorder)."""
    await service.record(
        db,
        team_id=write.team_id,
        actor=service.Actor("token", write.token_prefix + "…", write.token_id, write.address),
        action=write.action,
        now=write.at,
        subject_type=write.subject_type,
        subject_id=write.subject_id,
        subject=write.subject,
        details={"request": write.request},
    )


routers = (router,)
