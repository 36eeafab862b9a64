"""Request and response shapes of urgency groups (the hosted API's /api/v2/urgency-groups)."""

from __future__ import annotations

from watchpost.plain_groups import GROUP_NOT_NULL, GroupAttributes, GroupCreate, GroupUpdate


class UrgencyGroupCreate(GroupCreate):
    pass


class UrgencyGroupUpdate(GroupUpdate):
    pass


class UrgencyGroupAttributes(GroupAttributes):
    pass


# The collection's convention (http/collection.py).
PREFIX = "/api/v2/urgency-groups"
ABOUT = (
    "A group of urgencies (a severity group), named and ordered by `sort_index`; urgencies "
    "join one with `urgency_group_id`. Deleting a group takes its urgencies out of it."
)
NOUN = "urgency group"
PLURAL = "urgency groups"
ATTRIBUTES = UrgencyGroupAttributes
CREATE = UrgencyGroupCreate
UPDATE = UrgencyGroupUpdate
NOT_NULL = GROUP_NOT_NULL
