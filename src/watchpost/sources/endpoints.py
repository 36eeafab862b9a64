"""Routes of /api/v1/sources."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/v1/sources", tags=["sources"])
