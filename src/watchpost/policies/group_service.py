"""What policy groups do as objects (plain_groups.py): the plain collection's functions."""

from __future__ import annotations

from typing import Final

from watchpost.plain_groups import PlainGroups
from watchpost.policies.models import Policy, PolicyGroup

GROUPS: Final = PlainGroups("policy_group", PolicyGroup, Policy, "policy_group_id")
TYPE: Final = GROUPS.TYPE
render, make, page, get, change, remove = (
    GROUPS.render,
    GROUPS.make,
    GROUPS.page,
    GROUPS.get,
    GROUPS.change,
    GROUPS.remove,
)
