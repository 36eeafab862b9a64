"""How status pages, sections and resources appear in the API: their attributes and documents."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.clock import isoformat_ms
from watchpost.listing import Resource, resource
from watchpost.status_pages import resources
from watchpost.status_pages.availability import Summary
from watchpost.status_pages.metadata_rules import rule_out
from watchpost.status_pages.models import StatusPage, StatusPageResource, StatusPageSection
from watchpost.status_pages.pages import PAGE
from watchpost.status_pages.records import summaries
from watchpost.status_pages.report_states import with_reports
from watchpost.status_pages.resource_rows import ResourceRow, resource_row
from watchpost.status_pages.resource_types import (
    HISTORY_WIDGETS,
    MANUAL,
    MANUAL_DEFAULT_NAME,
    RESOURCE_KINDS,
)
from watchpost.status_pages.sections import SECTION
from watchpost.status_pages.windows import SharedDays
from watchpost.writing import Team


def page_attributes(page: StatusPage, *, team_name: str, state: str) -> dict[str, Any]:
    return {
        "company_name": page.company_name,
        "company_url": page.company_url,
        "contact_url": page.contact_url,
        "logo_url": page.logo_url,
        "logo_remote_url": page.logo_url,
        "dark_logo_url": page.dark_logo_url,
        "dark_logo_remote_url": page.dark_logo_url,
        "whitelabeled": page.whitelabeled,
        "timezone": page.timezone,
        "subdomain": page.subdomain,
        "custom_domain": page.custom_domain,
        "history": page.history,
        "min_incident_length": page.min_incident_length,
        "subscribable": page.subscribable,
        "published": page.published,
        "hide_from_search_engines": page.hide_from_search_engines,
        "custom_css": page.custom_css,
        "custom_javascript": page.custom_javascript,
        "google_analytics_id": page.google_analytics_id,
        "announcement": page.announcement,
        "announcement_embed_visible": page.announcement_embed_visible,
        "announcement_embed_link": page.announcement_embed_link,
        "announcement_embed_css": page.announcement_embed_css,
        "password_enabled": page.password_enabled,
        "require_sso": page.require_sso,
        "theme": page.theme,
        "layout": page.layout,
        "design": page.design,
        "automatic_reports": page.automatic_reports,
        "status_page_group_id": page.status_page_group_id,
        "navigation_links": page.navigation_links,
        "ip_allowlist": page.ip_allowlist,
        "aggregate_state": state,
        "team_name": team_name,
        "created_at": isoformat_ms(page.created_at),
        "updated_at": isoformat_ms(page.updated_at),
    }


def section_attributes(section: StatusPageSection) -> dict[str, Any]:
    return {
        "name": section.name,
        "position": section.position,
        "fixed_position": section.fixed_position,
        "status_page_id": section.status_page_id,
        "created_at": isoformat_ms(section.created_at),
        "updated_at": isoformat_ms(section.updated_at),
    }


def public_name(resource: ResourceRow, target: Any | None) -> str:
    if resource.public_name:
        return resource.public_name
    for attr in RESOURCE_KINDS[resource.resource_type].name_attrs:
        value = getattr(target, attr, None)
        if value:
            return str(value)
    if resource.resource_type == MANUAL:
        return MANUAL_DEFAULT_NAME
    return f"{resource.resource_type} {resource.resource_id}"


def _encodable(history: list[dict[str, Any]]) -> Any:
    """The entries, or their encoding when many items share them (windows.SharedDays)."""
    return history.json if isinstance(history, SharedDays) else history


def resource_attributes(
    resource: ResourceRow,
    *,
    target: Any | None,
    summary: Summary,
) -> dict[str, Any]:
    return {
        "status_page_section_id": resource.status_page_section_id,
        "resource_id": resource.resource_id,
        "resource_type": resource.resource_type,
        "history": resource.widget_type in HISTORY_WIDGETS,
        "widget_type": resource.widget_type,
        "public_name": public_name(resource, target),
        "explanation": resource.explanation,
        "position": resource.position,
        "fixed_position": resource.fixed_position,
        "mark_as_down_for": resource.mark_as_down_for,
        "mark_as_down_metadata_rule": rule_out(resource.mark_as_down_metadata_rule),
        "mark_as_degraded_for": resource.mark_as_degraded_for,
        "mark_as_degraded_metadata_rule": rule_out(resource.mark_as_degraded_metadata_rule),
        "availability": summary.availability,
        "status": summary.status,
        "status_history": _encodable(summary.status_history),
        "created_at": resource.created_at,
        "updated_at": resource.updated_at,
    }


async def page_document(
    db: AsyncSession, page: StatusPage, caller: Team, now: datetime
) -> Resource:
    state = await resources.page_state(db, page=page, now=now)
    return resource(
        PAGE,
        page.id,
        page_attributes(page, team_name=caller.team_name, state=state),
    )


def section_document(section: StatusPageSection) -> Resource:
    return resource(SECTION, section.id, section_attributes(section))


async def resource_documents(
    db: AsyncSession,
    page: StatusPage,
    resources_or_rows: Sequence[StatusPageResource | ResourceRow],
    now: datetime,
    *,
    history_days: int | None = None,
) -> list[Resource]:
    rows = [row if isinstance(row, ResourceRow) else resource_row(row) for row in resources_or_rows]
    targets = await resources.load_targets(db, rows)
    found = await summaries(db, rows, targets, page=page, now=now, shown=history_days)
    found = await with_reports(db, found, page_id=page.id, now=now)
    return [
        resource(
            resources.RESOURCE,
            row.id,
            resource_attributes(
                row,
                target=targets.get((row.resource_type, row.resource_id)),
                summary=found[row.id],
            ),
        )
        for row in rows
    ]
