"""Routes of /api/v2/pager-duty-webhooks (the hosted API's PagerDuty integrations)."""

from __future__ import annotations

from watchpost.http.collection import Collection
from watchpost.pagerduty import schemas, service

routers = Collection.of(service, schemas).routers()
