"""Where a probe connects, and the one wording of what went wrong on the way.

Messages are for people (shown through the API and in incidents) and never hold a
credential: `scrub` removes whatever a server or library echoed. Nor do they carry what a
server answered: a check can point at any allowed address, and an error text that quoted the
answer would let whoever made the check read a server they cannot reach themselves. Parsers'
messages, which quote the input they failed on, are cut to their reason (`reason`); a value
a protocol defines as a name (a cluster's name, its status) is quoted short (`excerpt`); a
library's message is one line, bounded (`first_line`).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from dataclasses import dataclass
from typing import Final

from watchpost import outbound
from watchpost.masking import MASK, mask_urls

LISTENING_HINT = " (nothing listens on that port?)"
EXCERPT_CHARS: Final = 64
"""The most of a server's value a message quotes."""
LINE_CHARS: Final = 200
"""The most of a library's message a message carries."""


@dataclass(frozen=True)
class Address:
    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def scrub(message: str, secrets: tuple[str, ...]) -> str:
    """The message with every credential replaced, whatever a server or library echoed, and
    its URLs masked (masking.py)."""
    for secret in secrets:
        message = message.replace(secret, MASK)
    return mask_urls(message)


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """A value a server sent, as a message may quote it: printable, one line, at most limit
    characters (cut with …)."""
    text = " ".join("".join(c if c.isprintable() else " " for c in str(value)).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return excerpt(text.splitlines()[0], LINE_CHARS) if text else type(exc).__name__


def reason(error: BaseException | str) -> str:
    """What a parser says went wrong, without the input it quotes: its message up to the
    first colon ("Invalid labels: <the line>", "Bad status line: <the bytes>")."""
    if isinstance(error, BaseException):
        first = error.args[0] if error.args else None
        text = first if isinstance(first, str) and first.strip() else type(error).__name__
    else:
        text = error
    return excerpt(text.split(":", 1)[0], EXCERPT_CHARS) or "unreadable"


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def describe(exc: BaseException, address: Address, *, refused_hint: str = "") -> str:
    """Wording for a refused connection, a failed lookup, a TLS failure … anywhere in the
    chain, else the exception's first line. refused_hint follows a refused connection's."""
    for cause in _chain(exc):
        if isinstance(cause, outbound.DeniedAddress):
            return f"{cause}; nothing was sent"
        if isinstance(cause, socket.gaierror):
            return f"cannot resolve host {address.host} (DNS lookup failed: {cause.strerror})"
        if isinstance(cause, ConnectionRefusedError):
            return f"connection refused by {address}{refused_hint}"
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"TLS certificate verify failed: {cause.verify_message}"
        if isinstance(cause, ssl.SSLError):
            return f"TLS handshake with {address} failed ({cause.reason or first_line(cause)})"
        if isinstance(cause, TimeoutError):
            return f"no answer from {address} in time"
        if isinstance(cause, asyncio.IncompleteReadError | ConnectionResetError | BrokenPipeError):
            return f"connection closed by {address} before it answered"
        if isinstance(cause, OSError) and cause.errno is not None:
            return f"cannot connect to {address}: {cause.strerror}"
    return f"check of {address} failed: {first_line(exc)}"
