"""Where an SMS or a call telling a person goes: their phone numbers, as the recipients of
the instance's SMS or call service (WATCHPOST_SMS_URL / WATCHPOST_CALL_URL).

Apprise's SMS and call plugins take their recipients as the URL's path segments (after the
sender, where the plugin has one) or its `?to=`: the URL is parsed by its own plugin, the
person's numbers replace the recipients it names (so a shared number in the URL does not get
a copy for every person told), and everything else (credentials, sender, host, query string)
is kept. A person without a number: the URL's own recipients, if it names any (as before
people had numbers); if it names none, nothing is sent and the attempt says why, finally. A
service whose plugin takes no recipients (json://, a generic webhook) is sent to as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from watchpost import masking
from watchpost.context import AppContext
from watchpost.teams.models import User


@dataclass(frozen=True)
class Person:
    """Whom an SMS or call delivery tells: their name (or e-mail) and numbers."""

    name: str
    numbers: tuple[str, ...]


async def person(ctx: AppContext, email: str) -> Person | None:
    """The person with that address now (their numbers as they are at the attempt), or None
    (no longer anyone's)."""
    async with ctx.db.read_sessions() as db:
        row = (
            await db.execute(
                select(User.name, User.email, User.phone_numbers).where(User.email == email.lower())
            )
        ).first()
    if row is None:
        return None
    return Person(name=row.name or row.email, numbers=tuple(row.phone_numbers or ()))


def addressed(url: str, numbers: tuple[str, ...]) -> str | Any | None:
    """What to send through: the URL as it is, an Apprise service with `numbers` as its
    recipients, or None when there are no numbers and the URL names no recipient."""
    import apprise  # loaded at first use (delivery/chat.py)
    from apprise.plugins import url_to_dict

    parsed = url_to_dict(url, secure_logging=True)  # type: ignore[no-untyped-call]
    if not parsed or not isinstance(parsed.get("targets"), list):
        return url  # a URL Apprise refuses (notify says so), or one with no recipients
    if not numbers:
        return url if parsed["targets"] else None
    parsed["targets"] = list(numbers)
    parsed.get("qsd", {}).pop("to", None)
    try:
        with masking.apprise_unlogged():
            return apprise.Apprise.instantiate(parsed, suppress_exceptions=False) or url
    except Exception:  # the URL itself is at fault: sending it says so, as it always did
        return url
