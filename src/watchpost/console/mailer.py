"""The console's e-mail (password resets, invitations), sent through the SMTP server alert
e-mail uses (WATCHPOST_SMTP_URL). A failure is logged without the link (it is a credential)."""

from __future__ import annotations

import logging

from watchpost.delivery import mail
from watchpost.settings import Settings

log = logging.getLogger(__name__)


async def _send(settings: Settings, recipient: str, subject: str, text: str) -> None:
    message = mail.new_message(subject=subject, sender=settings.mail_from, recipient=recipient)
    message.set_content(text)
    outcome = await mail.send(message, settings=settings)
    if outcome.error:
        log.warning("console e-mail %r to %s not sent: %s", subject, recipient, outcome.error)


async def send_reset(settings: Settings, recipient: str, name: str, url: str) -> None:
    await _send(
        settings,
        recipient,
        "Reset your Watchpost password",
        f"Hello {name},\n\nSomeone (we hope you) asked to reset your Watchpost password. "
        f"This link sets a new one; it works once, for 24 hours:\n\n{url}\n\n"
        "If it was not you, ignore this e-mail: your password stays as it is.\n",
    )


async def send_invitation(
    settings: Settings, recipient: str, *, team: str, role: str, inviter: str, url: str
) -> None:
    await _send(
        settings,
        recipient,
        f"You are invited to {team} on Watchpost",
        f"Hello,\n\n{inviter} invited you to the team {team} on Watchpost, as {role}. "
        f"This link accepts the invitation (and sets your password if you have none yet); "
        f"it works once, for 24 hours:\n\n{url}\n",
    )
