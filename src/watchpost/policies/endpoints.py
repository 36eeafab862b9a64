"""Routes of /api/v3/policies (escalation policies)."""

from __future__ import annotations

from watchpost.http.collection import Collection
from watchpost.policies import schemas, service

routers = Collection.of(service, schemas).routers()
