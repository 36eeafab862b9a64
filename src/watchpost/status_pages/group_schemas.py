"""Request and response shapes of status page groups (the hosted API's
/api/v2/status-page-groups)."""

from __future__ import annotations

from watchpost.plain_groups import GROUP_NOT_NULL, GroupAttributes, GroupCreate, GroupUpdate


class StatusPageGroupCreate(GroupCreate):
    pass


class StatusPageGroupUpdate(GroupUpdate):
    pass


class StatusPageGroupAttributes(GroupAttributes):
    pass


# The collection's convention (http/collection.py).
PREFIX = "/api/v2/status-page-groups"
ABOUT = (
    "A group of status pages, named and ordered by `sort_index`; pages join one with "
    "`status_page_group_id`. Deleting a group takes its pages out of it."
)
NOUN = "status page group"
PLURAL = "status page groups"
ATTRIBUTES = StatusPageGroupAttributes
CREATE = StatusPageGroupCreate
UPDATE = StatusPageGroupUpdate
NOT_NULL = GROUP_NOT_NULL
