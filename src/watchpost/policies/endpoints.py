"""Routes of /api/v3/policies (escalation policies) and /api/v2/policy-groups."""

from __future__ import annotations

from watchpost.http.collection import Collection
from watchpost.policies import group_schemas, group_service, schemas, service

routers = (
    *Collection.of(service, schemas).routers(),
    *Collection.of(group_service, group_schemas).routers(),
)
