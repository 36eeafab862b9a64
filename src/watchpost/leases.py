"""Who holds a lease: the check engine's and the delivery workers' claims name their process."""

from __future__ import annotations

import os
import secrets
import socket


def new_owner() -> str:
    """A lease owner id unique to this process: host:pid:random."""
    return f"{socket.gethostname()[:80]}:{os.getpid()}:{secrets.token_hex(4)}"
