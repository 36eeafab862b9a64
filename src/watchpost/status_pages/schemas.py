"""Request and response shapes of status pages, sections and resources."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from watchpost.maintenance_windows import TimeZone
from watchpost.status_pages.resource_types import MarkFor, ResourceType, WidgetType
from watchpost.validation import INT32_MAX, Host, HttpUrl, Id, IdText, Name, Secret, check_http_url

Theme = Literal["light", "dark", "system"]
Layout = Literal["vertical", "horizontal"]
Design = Literal["v1", "v2"]

PAGE_DEFAULTS: dict[str, Any] = {
    "timezone": "UTC",
    "history": 90,
    "min_incident_length": 0,
    "password_enabled": False,
    "hide_from_search_engines": False,
    "theme": "light",
    "layout": "vertical",
    "design": "v2",
}

_DNS_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")


def check_subdomain(value: str) -> str:
    """A DNS label (letters, digits, inner hyphens; at most 63), stored lowercase."""
    text = value.strip().lower()
    if not _DNS_LABEL.match(text):
        raise ValueError(
            "must be a DNS label: 1-63 letters, digits or hyphens, not starting or ending "
            "with a hyphen"
        )
    return text


def check_contact_url(value: str) -> str:
    """An http(s) URL or a mailto: address."""
    text = value.strip()
    if text.startswith("mailto:") and "@" in text:
        return text
    try:
        return check_http_url(text)
    except ValueError:
        raise ValueError("must be an absolute http or https URL or a mailto: address") from None


def _lower(value: str) -> str:
    return value.lower()


Subdomain = Annotated[str, Field(max_length=63), AfterValidator(check_subdomain)]
ContactUrl = Annotated[str, Field(max_length=2048), AfterValidator(check_contact_url)]
Domain = Annotated[Host, AfterValidator(_lower)]
HistoryDays = Annotated[int, Field(ge=7, le=365)]
IncidentSeconds = Annotated[int, Field(ge=0, le=86_400)]
Text = Annotated[str, Field(max_length=10_000)]

# ---------------------------------------------------------------------------- pages


class NavigationLink(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Name
    href: ContactUrl


class PageFields(BaseModel):
    model_config = ConfigDict(extra="forbid")

    company_name: Name | None = Field(default=None, description="Default: the team's name.")
    company_url: HttpUrl | None = None
    contact_url: ContactUrl | None = None
    logo_url: HttpUrl | None = None
    timezone: TimeZone | None = Field(
        default=None, description="An IANA or Rails zone name, kept as sent; default UTC."
    )
    subdomain: Subdomain | None = Field(
        default=None, description="DNS label, unique across the installation."
    )
    custom_domain: Domain | None = Field(
        default=None, description="Host name, unique across the installation."
    )
    history: HistoryDays | None = Field(default=None, description="Days shown; default 90.")
    min_incident_length: IncidentSeconds | None = Field(
        default=None, description="Seconds; shorter incidents are not shown. Default 0."
    )
    announcement: Text | None = None
    password_enabled: bool | None = None
    password: Secret | None = Field(default=None, description="Write-only.")
    hide_from_search_engines: bool | None = None
    theme: Theme | None = Field(default=None, description="Default light.")
    layout: Layout | None = Field(default=None, description="Default vertical.")
    design: Design | None = Field(default=None, description="Default v2.")
    navigation_links: list[NavigationLink] | None = Field(default=None, max_length=20)


class PageCreate(PageFields):
    subdomain: Subdomain


class PageUpdate(PageFields):
    pass


# Attributes a PATCH may not set to null.
PAGE_NOT_NULL = (
    "company_name",
    "timezone",
    "subdomain",
    "history",
    "min_incident_length",
    "password_enabled",
    "hide_from_search_engines",
    "theme",
    "layout",
    "design",
    "navigation_links",
)


class PageAttributes(BaseModel):
    model_config = ConfigDict(extra="forbid")

    company_name: str
    company_url: str | None
    contact_url: str | None
    logo_url: str | None
    timezone: str
    subdomain: str
    custom_domain: str | None
    history: int
    min_incident_length: int
    announcement: str | None
    password_enabled: bool
    hide_from_search_engines: bool
    theme: Theme
    layout: Layout
    design: Design
    navigation_links: list[NavigationLink]
    aggregate_state: str
    team_name: str
    created_at: str
    updated_at: str


# ------------------------------------------------------------------------- sections

Position = Annotated[
    int, Field(ge=0, le=INT32_MAX, description="Zero-based; past the end appends.")
]


class SectionCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="", max_length=255, description="Blank hides the header.")
    position: Position | None = None
    fixed_position: bool = False


class SectionUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=255)
    position: Position | None = None
    fixed_position: bool | None = None


SECTION_NOT_NULL = ("name", "position", "fixed_position")


class SectionAttributes(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    position: int
    fixed_position: bool
    status_page_id: int
    created_at: str
    updated_at: str


# ------------------------------------------------------------------------ resources


class RuleValueIn(BaseModel):
    """{value} for a string, or {type, ...} naming an item: a User by email, name or
    item_id; a Team (your own) by name or item_id."""

    model_config = ConfigDict(extra="forbid")

    type: str | None = Field(default=None, max_length=64)
    value: str | None = Field(default=None, max_length=1000)
    item_id: IdText | Id | None = None
    name: str | None = Field(default=None, max_length=255)
    email: str | None = Field(default=None, max_length=320)


class MetadataRuleIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: Name
    values: list[RuleValueIn] = Field(min_length=1, max_length=100)


class ResourceFields(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status_page_section_id: Id | None = Field(
        default=None, description="Default: the page's first section (created if none)."
    )
    resource_type: ResourceType | None = Field(
        default=None, description="Default: ManuallyTrackedItem."
    )
    resource_id: IdText | Id | None = Field(
        default=None, description="Id of the item (a string); omit for ManuallyTrackedItem."
    )
    widget_type: WidgetType | None = Field(
        default=None, description="Default history; takes preference over `history`."
    )
    history: bool | None = Field(default=None, description="true: history widget, false: plain.")
    public_name: str | None = Field(
        default=None, max_length=255, description="Default: the item's own name."
    )
    explanation: Text | None = None
    position: Position | None = None
    fixed_position: bool | None = None
    mark_as_down_for: MarkFor | None = Field(default=None, description="Default any_incident.")
    mark_as_down_metadata_rule: MetadataRuleIn | None = None
    mark_as_degraded_for: MarkFor | None = Field(default=None, description="Default no_incident.")
    mark_as_degraded_metadata_rule: MetadataRuleIn | None = None


# Optional on PATCH, but never null (a 422 names them).
RESOURCE_NOT_NULL = (
    "status_page_section_id",
    "resource_type",
    "widget_type",
    "history",
    "explanation",
    "position",
    "fixed_position",
    "mark_as_down_for",
    "mark_as_degraded_for",
)


class RuleValueOut(BaseModel):
    type: str
    item_id: str | None
    name: str | None
    value: str | None = None
    email: str | None = None


class MetadataRuleOut(BaseModel):
    key: str
    values: list[RuleValueOut]


class DayOut(BaseModel):
    day: str
    status: str
    downtime_duration: int
    maintenance_duration: int


class ResourceAttributes(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status_page_section_id: int
    resource_id: int | None
    resource_type: ResourceType
    history: bool
    widget_type: WidgetType
    public_name: str
    explanation: str
    position: int
    fixed_position: bool
    mark_as_down_for: MarkFor
    mark_as_down_metadata_rule: MetadataRuleOut | None
    mark_as_degraded_for: MarkFor
    mark_as_degraded_metadata_rule: MetadataRuleOut | None
    availability: float = Field(
        ge=0,
        le=1,
        description="Fraction of the observed time, outside maintenance, without downtime; "
        "1 when nothing was observed (status_history then says not_monitored).",
    )
    status: str
    status_history: list[DayOut]
    created_at: str
    updated_at: str
