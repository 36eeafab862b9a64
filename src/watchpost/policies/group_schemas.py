"""Request and response shapes of policy groups (the hosted API's /api/v2/policy-groups)."""

from __future__ import annotations

from watchpost.plain_groups import GROUP_NOT_NULL, GroupAttributes, GroupCreate, GroupUpdate


class PolicyGroupCreate(GroupCreate):
    pass


class PolicyGroupUpdate(GroupUpdate):
    pass


class PolicyGroupAttributes(GroupAttributes):
    pass


# The collection's convention (http/collection.py).
PREFIX = "/api/v2/policy-groups"
ABOUT = (
    "A group of escalation policies, named and ordered by `sort_index`; policies join one "
    "with `policy_group_id`. Deleting a group takes its policies out of it."
)
NOUN = "policy group"
PLURAL = "policy groups"
ATTRIBUTES = PolicyGroupAttributes
CREATE = PolicyGroupCreate
UPDATE = PolicyGroupUpdate
NOT_NULL = GROUP_NOT_NULL
