"""Request and response shapes of status reports and their status updates (the hosted
API's `status_report` and `status_update`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from watchpost.status_pages.limits import MAX_RESOURCES
from watchpost.validation import INT64_MAX, ClosedModel, IdText

ReportType = Literal["manual", "maintenance"]
AffectedStatus = Literal["resolved", "degraded", "downtime", "maintenance"]
Time = Annotated[
    str, Field(max_length=64, description="ISO 8601, e.g. 2026-01-31T09:00:00Z (UTC if no offset).")
]
Message = Annotated[str, Field(max_length=50_000)]
Title = Annotated[str, Field(max_length=1_000)]
ResourceRef = Annotated[int, Field(ge=1, le=INT64_MAX)] | IdText


class AffectedResource(ClosedModel):
    status_page_resource_id: ResourceRef = Field(
        description="A resource of this status page (an id, as a string or a number)."
    )
    status: AffectedStatus = Field(
        description="`maintenance` in a maintenance report; otherwise `resolved`, `degraded` "
        "or `downtime`."
    )


Affected = Annotated[list[AffectedResource], Field(max_length=MAX_RESOURCES)]


class ReportCreate(ClosedModel):
    title: Title = ""
    message: Message = Field(default="", description="The first status update's message.")
    report_type: ReportType = "manual"
    notify_subscribers: bool = Field(
        default=True, description="Stored on the first update; no e-mail is sent."
    )
    affected_resources: Affected = Field(default_factory=list)
    published_at: Time | None = Field(
        default=None, description="The first update's publication time; default now."
    )
    starts_at: Time | None = Field(default=None, description="Default now.")
    ends_at: Time | None = Field(default=None, description="Required for a maintenance.")


class ReportUpdate(ClosedModel):
    title: Title | None = None
    starts_at: Time | None = None
    ends_at: Time | None = Field(default=None, description="null clears it (manual reports).")
    affected_resources: Affected | None = Field(
        default=None, description="Replaces the newest status update's affected resources."
    )


REPORT_NOT_NULL = ("title", "starts_at", "affected_resources")


class UpdateCreate(ClosedModel):
    message: Message = ""
    notify_subscribers: bool = Field(default=False, description="Stored; no e-mail is sent.")
    affected_resources: Affected
    published_at: Time | None = Field(default=None, description="Default now.")


class UpdateChange(ClosedModel):
    message: Message | None = None
    notify_subscribers: bool | None = None
    affected_resources: Affected | None = None
    published_at: Time | None = None


UPDATE_NOT_NULL = ("message", "notify_subscribers", "affected_resources", "published_at")


class AffectedOut(BaseModel):
    status_page_resource_id: str
    status: str


class ReportAttributes(BaseModel):
    title: str
    report_type: str
    starts_at: str
    ends_at: str | None
    status_page_id: int
    affected_resources: list[AffectedOut]
    aggregate_state: str = Field(
        description="The worst current status: downtime, degraded, maintenance or operational."
    )


class UpdateAttributes(BaseModel):
    message: str
    published_at: str
    published_at_timezone: str
    notify_subscribers: bool
    status_report_id: int
    affected_resources: list[AffectedOut]


Relationships = dict[str, Any]
