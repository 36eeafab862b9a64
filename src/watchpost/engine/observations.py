"""Every check result goes to the check history (watchpost/history) with its batch."""

from __future__ import annotations

from watchpost.history.service import Observation, SubjectType, record

__all__ = ["Observation", "SubjectType", "record"]
