"""/integrations: the team's incoming webhooks and PagerDuty integrations in the console.

One page lists both kinds (each paged in SQL on its own: `incoming_page`, `pagerduty_page`).
Each object's page, create and edit forms and confirmed delete are in
console/integrations_incoming.py and console/integrations_pagerduty.py; this module holds the
list page and what both share: the section's paths and notices, the signed-in team as the
domain's caller (`_caller`) and the confirmed delete with its audit entry (`_delete`).
Reading needs Action.READ; every change Action.EDIT. Another team's object is a 404.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.account import audit
from watchpost.console.auth import Viewer, read_db
from watchpost.console.confirming import Asking, delete_confirmed
from watchpost.console.notices import done_query
from watchpost.console.query_numbers import number
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.web import render
from watchpost.incoming import service as incoming
from watchpost.listing import PageRequest
from watchpost.pagerduty import service as pagerduty
from watchpost.people.roles import Action
from watchpost.teams.service import Principal

router = console_router()

SECTION: Final = "integrations"
PAGE_SIZE: Final = 25
INCOMING: Final = "/integrations/incoming"
PAGERDUTY: Final = "/integrations/pagerduty"
NOTICES: Final = {"saved": "Saved.", "deleted": "Deleted."}


def _caller(who: Viewer) -> Principal:
    """The signed-in team as the domain's caller (the services read its team only; a
    person has no token, hence token_id 0)."""
    return Principal(team_id=who.team_id, team_name=who.team_name, token_id=0)


def _paging(request: Request, name: str) -> PageRequest:
    other = "pagerduty_page" if name == "incoming_page" else "incoming_page"
    kept = request.query_params.get(other)
    return PageRequest(
        page=number(request.query_params.get(name)),
        per_page=PAGE_SIZE,
        base_url=request.url.path,
        other_params=((other, kept),) if kept else (),
    )


def _named_links(links: Mapping[str, str | None], name: str) -> dict[str, str | None]:
    """The listing's links with its page parameter named for its kind."""
    return {
        key: None
        if url is None
        else url.replace("?page=", f"?{name}=").replace("&page=", f"&{name}=")
        for key, url in links.items()
    }


@router.get("/integrations")
async def list_page(request: Request, who: Signed) -> Response:
    db = await read_db(request, who, Action.READ)
    caller = _caller(who)
    incoming_paging = _paging(request, "incoming_page")
    pagerduty_paging = _paging(request, "pagerduty_page")
    webhooks = await incoming.page(db, caller, incoming_paging)
    integrations = await pagerduty.page(db, caller, pagerduty_paging)
    return render(
        request,
        "integrations.html",
        viewer=who,
        section=SECTION,
        webhooks=webhooks.data,
        webhook_links=_named_links(webhooks.links, "incoming_page"),
        webhook_page=incoming_paging.page,
        integrations=integrations.data,
        integration_links=_named_links(integrations.links, "pagerduty_page"),
        integration_page=pagerduty_paging.page,
        notice=NOTICES.get(request.query_params.get("done", "")),
    )


# ------------------------------------------------------------------------ shared kit


@dataclass(frozen=True)
class Deleting:
    """One kind's confirmed delete: its audit entries' subject type, its name in words and
    what the confirmation says deleting one does."""

    subject_type: str
    what: str
    detail: str


DELETING: Final = {
    INCOMING: Deleting(
        "incoming_webhook",
        "incoming webhook",
        "Its URL stops working at once; its open incident is resolved; its incidents stay, as "
        "history.",
    ),
    PAGERDUTY: Deleting(
        "pagerduty_integration",
        "PagerDuty integration",
        "Incidents are no longer sent to its PagerDuty service.",
    ),
}


async def _delete(
    request: Request,
    who: Viewer,
    path: str,
    row_id: str,
    find: Callable[[AsyncSession, Viewer, str], Awaitable[Any]],
    remove: Callable[[AsyncSession, Any], Awaitable[None]],
) -> Response:
    """Delete after a confirmation (the server's own page when JavaScript is off)."""
    now = request.app.state.ctx.clock.now()
    kind = DELETING[path]
    subject_type = kind.subject_type

    async def removed(db: AsyncSession, row: Any) -> None:
        subject = (subject_type, row.id, row.name)
        await audit(db, request, who, f"{subject_type}.deleted", now, subject)
        await remove(db, row)

    def ask(row: Any) -> Asking:
        question = f"Delete the {kind.what} {row.name}?"
        return Asking(
            title=question,
            question=question,
            detail=kind.detail,
            action=f"{path}/{row_id}/delete",
            button=f"Delete the {kind.what}",
            back=f"{path}/{row_id}",
        )

    done = "/integrations?" + done_query("deleted")
    return await delete_confirmed(
        request,
        who,
        SECTION,
        find=lambda db: find(db, who, row_id),
        ask=ask,
        remove=removed,
        done=done,
    )
