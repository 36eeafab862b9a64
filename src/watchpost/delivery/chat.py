"""Sending an incident event to a notification channel through Apprise.

Apprise's senders are synchronous (requests); `async_notify` runs them in threads. They do
not go through the destination policy's resolver: a channel's host is checked when the
channel is created or changed (channels/schemas.py), not again at send time.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import apprise

from watchpost.crypto import SecretBox
from watchpost.delivery.mail import summary
from watchpost.delivery.sending import Outcome


async def send(
    url_encrypted: str, payload: dict[str, Any], *, box: SecretBox, acknowledge_url: str | None
) -> Outcome:
    """One attempt: the event's title and text to the channel; Apprise's warnings as the
    error (they name the service, never the URL's credentials)."""
    title, text = summary(payload, acknowledge_url=acknowledge_url)
    sender = apprise.Apprise()
    if not sender.add(box.decrypt(url_encrypted)):
        return Outcome(error="the channel's URL is no longer a valid Apprise URL", final=True)
    started = time.perf_counter()
    capture = apprise.LogCapture(level=logging.WARNING, fmt="%(message)s")  # type: ignore[no-untyped-call]
    with capture as captured:
        sent = await sender.async_notify(title=title, body=text)
    duration = round((time.perf_counter() - started) * 1000)
    if sent:
        return Outcome(status_code=200, duration_ms=duration)
    reason = captured.getvalue().strip().replace("\n", "; ") or "the service refused it"
    return Outcome(duration_ms=duration, error=reason[:500])
