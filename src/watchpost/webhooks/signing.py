"""Signing webhook requests as the Standard Webhooks specification says.

Headers: `webhook-id` (the message id, the same on every retry, so receivers drop
duplicates), `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`:
space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per key in use (two for
24 hours after a rotation). A key is `whsec_` followed by the base64 of 32 random bytes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Iterable
from typing import Final

PREFIX: Final = "whsec_"
KEY_BYTES: Final = 32


def new_secret() -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode()


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(PREFIX))


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """`v1,<base64 signature>` of one key."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(
    secrets_in_use: Iterable[str], message_id: str, timestamp: int, body: bytes
) -> dict[str, str]:
    """The three headers; without a key, only the id and the timestamp."""
    result = {"webhook-id": message_id, "webhook-timestamp": str(timestamp)}
    signatures = [signature(key, message_id, timestamp, body) for key in secrets_in_use]
    if signatures:
        result["webhook-signature"] = " ".join(signatures)
    return result


def verify(secret: str, message_id: str, timestamp: int, body: bytes, header: str) -> bool:
    """Whether one of the header's v1 signatures is secret's (what a receiver does)."""
    expected = signature(secret, message_id, timestamp, body)
    return any(hmac.compare_digest(expected, part) for part in header.split())
