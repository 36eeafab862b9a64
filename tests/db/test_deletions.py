"""Deleting an item that status page resources name: the hook is always installed."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

from watchpost.db import deletions
from watchpost.groups.group_kinds import SHOWN_GROUPS
from watchpost.status_pages.resource_types import RESOURCE_KINDS


def test_the_app_installs_a_hook_for_every_type_a_page_can_show(shared_app: FastAPI) -> None:
    shown = {name for name, kind in RESOURCE_KINDS.items() if kind.model is not None}
    assert set(SHOWN_GROUPS) <= shown
    assert shown <= deletions.registered()


async def test_deleting_a_type_without_a_hook_fails_before_touching_anything() -> None:
    untouched: Any = object()  # no session method may be called
    with pytest.raises(LookupError, match="NoSuchType"):
        await deletions.delete_named(untouched, untouched, item_type="NoSuchType")
