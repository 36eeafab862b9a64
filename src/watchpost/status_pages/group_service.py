"""What status page groups do as objects (plain_groups.py): the plain collection's functions."""

from __future__ import annotations

from typing import Final

from watchpost.plain_groups import PlainGroups
from watchpost.status_pages.models import StatusPage, StatusPageGroup

GROUPS: Final = PlainGroups(
    "status_page_group", StatusPageGroup, StatusPage, "status_page_group_id"
)
TYPE: Final = GROUPS.TYPE
render, make, page, get, change, remove = (
    GROUPS.render,
    GROUPS.make,
    GROUPS.page,
    GROUPS.get,
    GROUPS.change,
    GROUPS.remove,
)
