"""Routes of /api/v2/urgencies and /api/v2/urgency-groups."""

from __future__ import annotations

from watchpost.http.collection import Collection
from watchpost.plain_groups import PlainGroups
from watchpost.urgencies import group_schemas, schemas, service
from watchpost.urgencies.models import Urgency, UrgencyGroup

GROUPS = PlainGroups("urgency_group", UrgencyGroup, Urgency, "urgency_group_id")
"""Urgency groups as a plain collection's service (plain_groups.py)."""

routers = (
    *Collection.of(service, schemas).routers(),
    *Collection.of(GROUPS, group_schemas).routers(),
)
