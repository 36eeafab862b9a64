"""Routes of /api/v2/audit-log: the calling token's team's audit log, newest first."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from watchpost.audit import service
from watchpost.audit.schemas import AuditEventAttributes
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


routers = (router,)
