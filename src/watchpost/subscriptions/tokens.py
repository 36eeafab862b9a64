"""The links of subscriptions: confirm and unsubscribe tokens, and the URLs they make.

A token seals (the instance's SecretBox: AES-256-GCM, so nobody makes or changes one without
the key) its purpose, the subscriber's id and a nonce of the row: a confirm token is good
for the sign-up it was sent for (every sign-up draws a new `confirm_nonce`, confirming draws
another), an unsubscribe token for as long as the subscriber exists (`unsubscribe_nonce`).
Tokens go in the path after a fixed prefix, which the logs mask (http/logs.py).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Final, Literal

from watchpost.crypto import SecretBox
from watchpost.settings import Settings

CONFIRM_PATH: Final = "/subscriptions/confirm/"
UNSUBSCRIBE_PATH: Final = "/subscriptions/unsubscribe/"
MAX_TOKEN: Final = 512
_PREFIX: Final = "subscription:"
_TO_URL = str.maketrans("+/", "-_")
_FROM_URL = str.maketrans("-_", "+/")

Purpose = Literal["confirm", "unsubscribe"]


def nonce() -> str:
    return secrets.token_hex(16)


def address_key(kind: str, address: str) -> str:
    """What makes two sign-ups the same subscriber of a page (an e-mail in lower case)."""
    compared = address.lower() if kind == "email" else address
    return hashlib.sha256(f"{kind}:{compared}".encode()).hexdigest()


def seal(box: SecretBox, purpose: Purpose, subscriber_id: int, row_nonce: str) -> str:
    sealed = box.encrypt(f"{_PREFIX}{purpose}:{subscriber_id}:{row_nonce}")
    return sealed.translate(_TO_URL).rstrip("=")


def read(box: SecretBox, purpose: Purpose, token: str) -> tuple[int, str] | None:
    """(subscriber id, nonce) of a token of this instance for `purpose`; None otherwise."""
    if len(token) > MAX_TOKEN or not token.startswith("v1."):
        return None
    padded = token.translate(_FROM_URL) + "=" * (-(len(token) - 3) % 4)
    try:
        plain = box.decrypt(padded)
    except ValueError:
        return None
    head, _, rest = plain.partition(_PREFIX)
    if head or not rest.startswith(purpose + ":"):
        return None
    subscriber, _, row_nonce = rest[len(purpose) + 1 :].partition(":")
    return (int(subscriber), row_nonce) if subscriber.isdigit() and row_nonce else None


def url(settings: Settings, path: str, token: str) -> str | None:
    if settings.public_base is None:
        return None
    return settings.public_base + path + token


def page_url(settings: Settings, subdomain: str) -> str | None:
    if settings.public_base is None:
        return None
    return f"{settings.public_base}/status/{subdomain}"
