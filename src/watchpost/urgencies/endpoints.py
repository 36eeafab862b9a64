"""Routes of /api/v2/urgencies and /api/v2/urgency-groups."""

from __future__ import annotations

from watchpost.http.collection import Collection
from watchpost.urgencies import group_schemas, group_service, schemas, service

routers = (
    *Collection.of(service, schemas).routers(),
    *Collection.of(group_service, group_schemas).routers(),
)
