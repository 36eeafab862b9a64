"""Routes of /api/v2/notification-channels (the test send is in delivery/endpoints.py)."""

from __future__ import annotations

from watchpost.channels import schemas, service
from watchpost.http.collection import Collection

routers = Collection.of(service, schemas).routers()
