"""POST /status-pages/{id}/layout: the editor's one form around its sections and resources.

The editor lists 200 resources and more; a form (with its CSRF field) for each button of
each row made the page heavy. The list is one form instead, and each button says what it
does by its name and value: `up`/`down`/`remove` = a resource's id, `section_up`/
`section_down`/`section_remove` = a section's id. This route hands the press to the same
code the single-purpose routes run (status_pages_layout.py, status_pages_resources.py), so
moving and removing behave the same whichever way they are posted; without JavaScript too."""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from watchpost.console.auth import permitted_form
from watchpost.console.errors import ConsoleRoute
from watchpost.console.status_pages_kit import Signed, team_page
from watchpost.console.status_pages_layout import section_moved, section_removed
from watchpost.console.status_pages_resources import resource_moved, resource_removed
from watchpost.http.deps import request_sessions
from watchpost.people.roles import Action

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)

PRESSES: Final = ("up", "down", "remove", "section_up", "section_down", "section_remove")
"""The buttons' names, one pressed at a time (a browser sends only the pressed one)."""


@router.post("/status-pages/{page_id}/layout")
async def layout_pressed(request: Request, who: Signed, page_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    pressed = next((name for name in PRESSES if str(form.get(name, "")).strip()), None)
    if pressed is None:  # nothing pressed (the page's own id checked: a 404 for another's)
        page = await team_page(await request_sessions(request).read(), who, page_id)
        return RedirectResponse(f"/status-pages/{page.id}?done=unchanged#layout", 303)
    target = str(form.get(pressed, "")).strip()
    if pressed in ("up", "down"):
        return await resource_moved(request, who, page_id, target, {"direction": pressed})
    if pressed == "remove":
        return await resource_removed(request, who, page_id, target, confirmed=False)
    if pressed == "section_remove":
        return await section_removed(request, who, page_id, target, confirmed=False)
    return await section_moved(request, who, page_id, target, pressed.removeprefix("section_"))
