"""Every console route, as one list the app adds before the status pages' fallback."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response, StreamingResponse
from fastapi.routing import APIRoute

from watchpost.console import (
    account,
    bulk,
    channels,
    details,
    editing,
    editing_more,
    incidents,
    integrations,
    integrations_incoming,
    integrations_incoming_form,
    integrations_pagerduty,
    live,
    location_tokens,
    locations,
    login,
    maintenance,
    oncall,
    oncall_calendars,
    oncall_events,
    overview,
    people_contact,
    people_phones,
    policies,
    policies_groups,
    policies_urgencies,
    sso,
    status_pages,
    status_pages_edit,
    status_pages_layout,
    status_pages_layout_form,
    status_pages_list,
    status_pages_resources,
    status_pages_subscribers,
    status_reports,
    status_reports_updates,
    team,
    team_audit,
    team_settings,
    team_tokens,
    webhooks,
    webhooks_actions,
)
from watchpost.console import logs as console_logs
from watchpost.console import metrics as console_metrics
from watchpost.console import saved_searches as console_saved_searches
from watchpost.console import sources as console_sources
from watchpost.console.auth import Viewer, viewer
from watchpost.console.errors import ConsoleRoute
from watchpost.console.web import STATIC_PATH, static_file

router = APIRouter(route_class=ConsoleRoute, include_in_schema=False)


@router.get(STATIC_PATH + "/{name}")
async def static(name: str, request: Request) -> Response:
    return static_file(name, request)


@router.get("/console/events")
async def events(request: Request, who: Annotated[Viewer, Depends(viewer)]) -> Response:
    return StreamingResponse(
        live.events(request, who.team_id),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def console_routes() -> list[APIRoute]:
    routers = (
        router,
        login.router,
        sso.router,
        account.router,
        overview.router,
        incidents.router,
        editing.router,
        editing_more.router,
        team.router,
        team_tokens.router,
        team_audit.router,
        team_settings.router,
        details.router,  # after editing: /monitors/new is the form's
        bulk.router,
        channels.router,
        maintenance.router,
        status_pages.router,
        status_pages_list.router,
        status_pages_layout.router,
        status_pages_layout_form.router,
        status_pages_resources.router,
        status_pages_edit.router,
        status_reports.router,
        status_reports_updates.router,
        status_pages_subscribers.router,
        webhooks.router,
        webhooks_actions.router,
        integrations.router,
        integrations_incoming_form.router,
        integrations_incoming.router,
        integrations_pagerduty.router,
        policies_groups.router,  # before policies: /policies/groups is no policy's id
        policies_urgencies.router,  # before policies: /policies/urgencies is no policy's id
        policies.router,
        oncall.router,
        oncall_calendars.router,
        oncall_events.router,
        people_contact.router,
        people_phones.router,
        console_sources.router,
        console_logs.router,
        console_saved_searches.router,
        console_metrics.router,
        locations.router,  # before location_tokens: /locations/new is no location's id
        location_tokens.router,
    )
    return [route for r in routers for route in r.routes if isinstance(route, APIRoute)]
