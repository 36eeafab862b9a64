"""The console's own paths that are named outside it (the CLI prints a link)."""

from __future__ import annotations

from typing import Final

LINK_PATH: Final = "/login/link"
"""Followed by a one-time link's token: a credential, masked in logs."""


def link_url(base: str, token: str) -> str:
    return f"{base.rstrip('/')}{LINK_PATH}/{token}"
