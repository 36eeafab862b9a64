"""The console's own paths that are named outside it (the CLI prints a link)."""

from __future__ import annotations

from typing import Final

LINK_PATH: Final = "/login/link"
"""Followed by a one-time link's token: a credential, masked in logs."""

SECRET_PATH_PREFIXES: Final = (LINK_PATH + "/",)
"""The console's paths whose next segment is a credential (http/logs.py masks it)."""


def link_url(base: str, token: str) -> str:
    return f"{base.rstrip('/')}{LINK_PATH}/{token}"
