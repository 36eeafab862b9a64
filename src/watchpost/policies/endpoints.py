"""Routes of /api/v3/policies (escalation policies) and /api/v2/policy-groups."""

from __future__ import annotations

from watchpost.http.collection import Collection
from watchpost.plain_groups import PlainGroups
from watchpost.policies import group_schemas, schemas, service
from watchpost.policies.models import Policy, PolicyGroup

GROUPS = PlainGroups("policy_group", PolicyGroup, Policy, "policy_group_id")
"""Policy groups as a plain collection's service (plain_groups.py)."""

routers = (
    *Collection.of(service, schemas).routers(),
    *Collection.of(GROUPS, group_schemas).routers(),
)
