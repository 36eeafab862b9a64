"""The acknowledge link of alert e-mails: /acknowledge/{token}, public (the token is the
authority, see links.py), pages rendered on the server.

GET shows the incident and a button; only the POST it sends acknowledges. Mail scanners and
link previews fetch links by GET, and must not acknowledge an incident nobody has seen.
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse
from markupsafe import Markup
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.errors import Conflict
from watchpost.http.deps import Context, ReadDb, WriteDb
from watchpost.http.openapi import ERROR_RESPONSES, MessageErrorBody
from watchpost.http.ratelimit import limit_by_address
from watchpost.http.security import html_policy, source_hash
from watchpost.incidents.models import Incident
from watchpost.incidents.transitions import Change, apply
from watchpost.inline_templates import InlineTemplate
from watchpost.links import ACKNOWLEDGE_PATH, read_acknowledge_token

router = APIRouter(
    prefix=ACKNOWLEDGE_PATH.rstrip("/"),
    tags=["alert e-mail"],
    dependencies=[Depends(limit_by_address)],
)
SECRET_PATH_PREFIXES = (ACKNOWLEDGE_PATH,)
"""The segment after this is an acknowledge token: logs mask it (http/logs.py)."""

_PAGE: Final = InlineTemplate(
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }} · Watchpost</title><style>{{ css }}</style></head>
<body>
<h1>{{ title }}</h1>
{% if incident %}<p><strong>{{ incident.name }}</strong></p><p>{{ incident.cause }}</p>{% endif %}
{% if message %}<p>{{ message }}</p>{% endif %}
{% if form %}<form method="post"><button type="submit">Acknowledge</button></form>{% endif %}
</body></html>
"""
)
_CSS: Final = Markup("body{font-family:sans-serif;max-width:40em;margin:3em auto}")
_HEADERS: Final = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": html_policy(style_src=[source_hash(_CSS)]),
}
NOT_VALID: Final = "This link is not valid, or its incident no longer exists."


def _html(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"text/html": {"schema": {"type": "string"}}}}


PAGE_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    200: _html("The page"),
    404: _html("The token is not one of this instance's, or its incident is gone"),
    429: {
        "description": ERROR_RESPONSES[429]["description"],
        "headers": ERROR_RESPONSES[429]["headers"],
        "content": {"application/json": {"schema": MessageErrorBody.model_json_schema()}},
    },
}


def _page(
    title: str,
    *,
    status: int = 200,
    incident: Incident | None = None,
    message: str | None = None,
    form: bool = False,
) -> HTMLResponse:
    html = _PAGE.render(title=title, incident=incident, message=message, form=form, css=_CSS)
    return HTMLResponse(html, status_code=status, headers=_HEADERS)


async def _incident(db: AsyncSession, ctx: AppContext, token: str) -> tuple[Incident, str] | None:
    found = read_acknowledge_token(ctx.box, token)
    if found is None:
        return None
    incident = await db.get(Incident, found[0])
    return None if incident is None else (incident, found[1])


@router.get(
    "/{token}",
    summary="The page of an alert e-mail's acknowledge link",
    response_class=HTMLResponse,
    responses=PAGE_RESPONSES,
)
async def acknowledge_page(token: str, ctx: Context, db: ReadDb) -> HTMLResponse:
    found = await _incident(db, ctx, token)
    if found is None:
        return _page("Link not valid", status=404, message=NOT_VALID)
    incident, _ = found
    if incident.status != "started":
        return _page(f"Incident {incident.status}", incident=incident, message=_done(incident))
    return _page("Acknowledge this incident?", incident=incident, form=True)


@router.post(
    "/{token}",
    summary="Acknowledge an incident from an alert e-mail",
    response_class=HTMLResponse,
    responses={**PAGE_RESPONSES, 409: _html("Already acknowledged or resolved")},
)
async def acknowledge(token: str, ctx: Context, db: WriteDb) -> HTMLResponse:
    async with db.begin():
        found = await _incident(db, ctx, token)
        if found is None:
            return _page("Link not valid", status=404, message=NOT_VALID)
        incident, recipient = found
        try:
            await apply(db, incident, Change.ACKNOWLEDGED, at=ctx.clock.now(), by=recipient)
        except Conflict:
            return _page(
                f"Incident {incident.status}",
                status=409,
                incident=incident,
                message=_done(incident),
            )
    return _page("Acknowledged", incident=incident, message=f"Acknowledged by {recipient}.")


def _done(incident: Incident) -> str:
    if incident.resolved_at is not None:
        return f"Already resolved by {incident.resolved_by}."
    return f"Already acknowledged by {incident.acknowledged_by}."


routers = (router,)
