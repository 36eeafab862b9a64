"""Request and response shapes of status pages, sections and resources."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from watchpost.status_pages.page_fields import (
    MAX_ALLOWLIST,
    MAX_NAVIGATION_LINKS,
    AllowlistEntry,
    Code,
    HistoryDays,
    IncidentSeconds,
    LinkHref,
    OptionalContactUrl,
    OptionalDomain,
    OptionalUrl,
    Password,
    Subdomain,
    Text,
)
from watchpost.status_pages.resource_types import MarkFor, ResourceType, WidgetType
from watchpost.timezones import ZoneName
from watchpost.validation import INT32_MAX, ClosedModel, Email, Id, IdText, Name, ShortText

Theme = Literal["light", "dark", "system"]
Layout = Literal["vertical", "horizontal"]
Design = Literal["v1", "v2"]

PAGE_DEFAULTS: dict[str, Any] = {
    "timezone": "UTC",
    "history": 90,
    "min_incident_length": 0,
    "password_enabled": False,
    "hide_from_search_engines": False,
    "whitelabeled": False,
    "subscribable": False,
    "published": True,
    "require_sso": False,
    "automatic_reports": False,
    "announcement_embed_visible": False,
    "ip_allowlist": [],
    "theme": "light",
    "layout": "vertical",
    "design": "v2",
}

# ---------------------------------------------------------------------------- pages


class NavigationLink(ClosedModel):
    text: Name
    href: LinkHref


class PageFields(ClosedModel):
    company_name: Name | None = Field(default=None, description="Default: the team's name.")
    company_url: OptionalUrl = None
    contact_url: OptionalContactUrl = None
    logo_url: OptionalUrl = Field(default=None, description="Same as logo_remote_url.")
    logo_remote_url: OptionalUrl = Field(default=None, description="Same as logo_url.")
    dark_logo_url: OptionalUrl = Field(default=None, description="Same as dark_logo_remote_url.")
    dark_logo_remote_url: OptionalUrl = Field(default=None, description="Same as dark_logo_url.")
    whitelabeled: bool | None = None
    timezone: ZoneName | None = Field(
        default=None, description="IANA or Rails zone name, kept as sent; default UTC."
    )
    subdomain: Subdomain | None = Field(
        default=None, description="DNS label, unique across the installation."
    )
    custom_domain: OptionalDomain = Field(
        default=None, description='Host name, unique across the installation; "" removes it.'
    )
    history: HistoryDays | None = Field(default=None, description="Days shown; default 90.")
    min_incident_length: IncidentSeconds | None = Field(
        default=None, description="Seconds; shorter incidents are not shown. Default 0."
    )
    subscribable: bool | None = None
    published: bool | None = Field(default=None, description="Default true.")
    hide_from_search_engines: bool | None = None
    custom_css: Code | None = None
    custom_javascript: Code | None = None
    google_analytics_id: str | None = Field(default=None, max_length=64)
    announcement: Text | None = None
    announcement_embed_visible: bool | None = None
    announcement_embed_link: OptionalUrl = None
    announcement_embed_css: Code | None = None
    password_enabled: bool | None = None
    password: Password | None = Field(
        default=None, description='Write-only, stored hashed; "" removes it (and disables it).'
    )
    require_sso: bool | None = None
    theme: Theme | None = Field(default=None, description="Default light.")
    layout: Layout | None = Field(default=None, description="Default vertical.")
    design: Design | None = Field(default=None, description="Default v2.")
    automatic_reports: bool | None = None
    status_page_group_id: Id | None = Field(
        default=None, description="A status page group of the team; null for none."
    )
    navigation_links: list[NavigationLink] | None = Field(
        default=None, max_length=MAX_NAVIGATION_LINKS
    )
    ip_allowlist: list[AllowlistEntry] | None = Field(
        default=None,
        max_length=MAX_ALLOWLIST,
        description="IP addresses, CIDR ranges and `#` comments, kept as sent; [] for none.",
    )


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
    "whitelabeled",
    "subscribable",
    "published",
    "require_sso",
    "automatic_reports",
    "announcement_embed_visible",
    "ip_allowlist",
)


class PageAttributes(ClosedModel):
    company_name: str
    company_url: str | None
    contact_url: str | None
    logo_url: str | None
    logo_remote_url: str | None = Field(description="The same as logo_url.")
    dark_logo_url: str | None
    dark_logo_remote_url: str | None = Field(description="The same as dark_logo_url.")
    whitelabeled: bool
    timezone: str
    subdomain: str
    custom_domain: str | None
    history: int
    min_incident_length: int
    subscribable: bool
    published: bool
    hide_from_search_engines: bool
    custom_css: str | None
    custom_javascript: str | None
    google_analytics_id: str | None
    announcement: str | None
    announcement_embed_visible: bool
    announcement_embed_link: str | None
    announcement_embed_css: str | None
    password_enabled: bool
    require_sso: bool
    theme: Theme
    layout: Layout
    design: Design
    automatic_reports: bool
    status_page_group_id: int | None
    navigation_links: list[NavigationLink]
    ip_allowlist: list[str]
    aggregate_state: str
    team_name: str
    created_at: str
    updated_at: str


# ------------------------------------------------------------------------- sections

Position = Annotated[
    int, Field(ge=0, le=INT32_MAX, description="Zero-based; past the end appends.")
]


class SectionCreate(ClosedModel):
    name: ShortText = Field(default="", description="Blank hides the header.")
    position: Position | None = None
    fixed_position: bool = False


class SectionUpdate(ClosedModel):
    name: ShortText | None = None
    position: Position | None = None
    fixed_position: bool | None = None


SECTION_NOT_NULL = ("name", "position", "fixed_position")


class SectionAttributes(ClosedModel):
    name: str
    position: int
    fixed_position: bool
    status_page_id: int
    created_at: str
    updated_at: str


# ------------------------------------------------------------------------ resources


class RuleValueIn(ClosedModel):
    """{value} for a string, or {type, ...} naming an item: a User by email, name or
    item_id; a Team (your own) by name or item_id."""

    type: str | None = Field(default=None, max_length=64)
    value: str | None = Field(default=None, max_length=1000)
    item_id: IdText | Id | None = None
    name: ShortText | None = None
    email: Email | None = None


class MetadataRuleIn(ClosedModel):
    key: Name
    values: list[RuleValueIn] = Field(min_length=1, max_length=100)


class ResourceFields(ClosedModel):
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
    public_name: ShortText | None = Field(default=None, description="Default: the item's own name.")
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
    item_id: str | int | None = Field(description="A string; a number where one was sent.")
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


class ResourceAttributes(ClosedModel):
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
