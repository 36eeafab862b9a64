"""Sending an incident event to a notification channel through Apprise.

Apprise's senders are synchronous (requests, smtplib, paho …); `async_notify` runs them in
threads that copy the caller's context. A channel's host is checked when the channel is
created or changed (channels/schemas.py), and every connection of a send, whichever library
makes it and wherever a redirect leads, is checked again by `outbound.policed()`: the
channels', and the SMS and call services' of the settings, one rule for all Apprise sends.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Final

from watchpost import masking, outbound
from watchpost.crypto import SecretBox
from watchpost.delivery import phone_targets
from watchpost.delivery.mail import summary
from watchpost.delivery.phone_targets import Person
from watchpost.delivery.sending import Outcome
from watchpost.settings import Settings


async def send(
    url_encrypted: str, payload: dict[str, Any], *, box: SecretBox, acknowledge_url: str | None
) -> Outcome:
    """One attempt: the event's title and text to the channel; Apprise's warnings as the
    error (they name the service, never the URL's credentials)."""
    return await notify(box.decrypt(url_encrypted), payload, acknowledge_url=acknowledge_url)


SERVICES: Final = {
    "sms": ("sms_url", "not sent: no SMS service is configured (WATCHPOST_SMS_URL)"),
    "call": ("call_url", "not sent: no phone call service is configured (WATCHPOST_CALL_URL)"),
}
"""The services of the instance's settings: the setting, and why nothing goes without it."""


async def send_to_service(
    way: str,
    payload: dict[str, Any],
    *,
    settings: Settings,
    acknowledge_url: str | None,
    person: Person | None = None,
) -> Outcome:
    """The event to the configured SMS or call service (an Apprise URL in the settings): to
    the person's numbers when a person is told (phone_targets.py), else to the recipients
    the URL names."""
    setting, missing = SERVICES[way]
    url = getattr(settings, setting)
    if not url:
        return Outcome(error=missing, final=True)
    service = phone_targets.addressed(url, person.numbers) if person is not None else url
    if service is None:
        assert person is not None
        return Outcome(error=f"not sent: {person.name} has no phone number", final=True)
    return await notify(service, payload, acknowledge_url=acknowledge_url)


async def notify(url: Any, payload: dict[str, Any], *, acknowledge_url: str | None) -> Outcome:
    """One send through an Apprise URL (or a service already made of one)."""
    import apprise  # at the first send: a server that sends no chat never loads it (≈ 3 MB)

    title, text = summary(payload, acknowledge_url=acknowledge_url)
    sender = apprise.Apprise()
    with masking.apprise_unlogged():  # a refused URL: Apprise's lines would name its token
        added = sender.add(url)
    if not added:
        return Outcome(error="the URL is not a valid Apprise URL", final=True)
    started = time.perf_counter()
    capture = apprise.LogCapture(level=logging.WARNING, fmt="%(message)s")  # type: ignore[no-untyped-call]
    with outbound.policed() as refusals, capture as captured:
        sent = await sender.async_notify(title=title, body=text)
    duration = round((time.perf_counter() - started) * 1000)
    if refusals.messages:
        # A send that met a denied address fails, even if a plugin's fallback got through.
        error = f"{refusals.messages[0]}; nothing was sent to it"
        return Outcome(duration_ms=duration, error=error)
    if sent:
        return Outcome(status_code=200, duration_ms=duration)
    reason = captured.getvalue().strip().replace("\n", "; ") or "the service refused it"
    return Outcome(duration_ms=duration, error=reason[:500])
