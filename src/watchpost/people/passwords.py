"""Passwords people sign in with: argon2id (argon2-cffi's defaults, RFC 9106's second
recommendation), verified off the event loop. An unknown e-mail is answered after checking a
dummy hash, so it takes the time a wrong password takes.

Each hash or check fills argon2's 64 MiB of memory for its duration: at most
`crypto.HASHING_AT_ONCE` run at a time (more sign-ins wait their turn), so a burst of sign-in
attempts cannot hold more than that many times 64 MiB; the dummy hash is made at the first
unknown e-mail, not when the module loads (a server nobody signs in to never spends it)."""

from __future__ import annotations

from functools import cache
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from watchpost.crypto import on_hashing_thread

MIN_LENGTH: Final = 10
MAX_LENGTH: Final = 1024  # hashing a megabyte of "password" is a way to burn CPU
_HASHER: Final = PasswordHasher()


@cache
def _dummy() -> str:
    return _HASHER.hash("not anybody's password")


def problem(password: str) -> str | None:
    """What is wrong with a new password, or None."""
    if len(password) < MIN_LENGTH:
        return f"Use at least {MIN_LENGTH} characters"
    if len(password) > MAX_LENGTH:
        return f"Use at most {MAX_LENGTH} characters"
    if not password.strip():
        return "A password cannot be only spaces"
    return None


async def hash_password(password: str) -> str:
    return await on_hashing_thread(_HASHER.hash, password)


def _verify(stored: str | None, password: str) -> bool:
    try:
        return _HASHER.verify(stored or _dummy(), password[:MAX_LENGTH]) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


async def verify(stored: str | None, password: str) -> bool:
    """Whether password matches stored (None: nobody's, checked against a dummy all the
    same)."""
    return await on_hashing_thread(_verify, stored, password)
