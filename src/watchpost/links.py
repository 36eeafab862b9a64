"""Links that carry their own authority: the acknowledge link of an alert e-mail.

The token is the incident id and the recipient, sealed by the instance's SecretBox (AES-GCM:
nobody can make or change one without the key), in URL-safe base64. Holding the link is what
allows acknowledging that one incident, as the e-mail's recipient.
"""

from __future__ import annotations

from typing import Final

from watchpost.crypto import SecretBox
from watchpost.settings import Settings

ACKNOWLEDGE_PATH: Final = "/acknowledge/"
_PREFIX: Final = "acknowledge:"
_TO_URL = str.maketrans("+/", "-_")
_FROM_URL = str.maketrans("-_", "+/")


def acknowledge_token(box: SecretBox, incident_id: int, recipient: str) -> str:
    sealed = box.encrypt(f"{_PREFIX}{incident_id}:{recipient}")
    return sealed.translate(_TO_URL).rstrip("=")


def read_acknowledge_token(box: SecretBox, token: str) -> tuple[int, str] | None:
    """(incident id, recipient) of a token this instance made; None for anything else."""
    if len(token) > 2048:
        return None
    padded = token.translate(_FROM_URL) + "=" * (-len(token.split(".", 1)[-1]) % 4)
    try:
        plain = box.decrypt(padded)
    except ValueError:
        return None
    if not plain.startswith(_PREFIX):
        return None
    incident, _, recipient = plain[len(_PREFIX) :].partition(":")
    return (int(incident), recipient) if incident.isdigit() else None


def acknowledge_url(
    settings: Settings, box: SecretBox, incident_id: int, recipient: str
) -> str | None:
    """The link, when a public URL is configured (an e-mail has no request to build it from)."""
    if settings.public_base is None:
        return None
    return settings.public_base + ACKNOWLEDGE_PATH + acknowledge_token(box, incident_id, recipient)
