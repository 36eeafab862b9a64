"""Alert e-mail: a message about an incident event, sent over the configured SMTP server.

The subject names the state, the incident and what it is about ("Down: Shop (monitor
https://shop.example/)", "Resolved: …"); the message has a text and an HTML part (the HTML
made by Jinja2 with autoescaping: incident names and causes come from checked servers and
people). Header values made of such text go through `one_line` (new_message).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any, Final

from watchpost.delivery.sending import Outcome
from watchpost.inline_templates import InlineTemplate
from watchpost.masking import mask_url
from watchpost.setting_values import parse_smtp_url
from watchpost.settings import Settings

NOT_CONFIGURED: Final = "not sent: no SMTP server is configured (WATCHPOST_SMTP_URL)"

_STATES: Final = {
    "started": "Down",
    "reopened": "Down again",
    "acknowledged": "Acknowledged",
    "resolved": "Resolved",
}
_OPENING: Final = frozenset({"started", "reopened"})
"""Events of an incident someone should now acknowledge."""

_HTML: Final = InlineTemplate(
    """<!doctype html>
<html><body style="font-family: sans-serif">
<h2>{{ event.state }}: {{ event.name }}</h2>
<p>{{ event.cause }}</p>
<table>
{% for label, value in event.facts %}<tr><th align="left">{{ label }}</th><td>{{ value }}</td></tr>
{% endfor %}</table>
{% if event.acknowledge_url %}<p><a href="{{ event.acknowledge_url }}">Acknowledge this incident</a></p>{% endif %}
<p style="color: #777">Sent by Watchpost to the members of team {{ team }}.</p>
</body></html>
"""
)


_BREAKS: Final = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")


def one_line(text: str) -> str:
    """A header value from text people or checked servers wrote: line breaks and other
    control characters folded into single spaces (a CR/LF would end the header, or add one:
    "a\\r\\nBcc: x@y")."""
    return " ".join(_BREAKS.sub(" ", text).split())


def new_message(*, subject: str, sender: str, recipient: str) -> EmailMessage:
    """An e-mail's headers: every e-mail Watchpost sends starts here."""
    mail = EmailMessage()
    mail["Subject"] = one_line(subject)
    mail["From"] = one_line(sender)
    mail["To"] = one_line(recipient)
    mail["Date"] = formatdate(localtime=False)
    mail["Message-ID"] = make_msgid(domain="watchpost")
    return mail


def _subject_of(data: dict[str, Any]) -> tuple[str, str]:
    """What an incident is about: its kind ("monitor", or how it was reported) and the
    object in words, by the name the incident took from it (and a monitor's URL)."""
    attributes = data["attributes"]
    name, url = attributes["name"], attributes.get("url")
    for kind, link in (data.get("relationships") or {}).items():
        words = kind.replace("_", " ")
        if kind == "incoming_webhook":
            # The incident's name comes from the request, not from the webhook.
            return words, f"{words} {link['data']['id']}"
        if url:
            shown = mask_url(url)
            return words, f"{words} {shown if name == url else f'{name} ({shown})'}"
        return words, f"{words} {name}"
    return "reported by hand", "reported by hand"


@dataclass(frozen=True)
class Told:
    """What an incident event tells people, whatever carries it (e-mail, chat, SMS)."""

    state: str
    name: str
    kind: str
    about: str
    cause: str
    facts: list[tuple[str, str]]
    acknowledge_url: str | None
    """Only on a start: acknowledging a resolved incident means nothing."""

    @property
    def title(self) -> str:
        return one_line(f"{self.state}: {self.name} ({self.kind})")


def told(payload: dict[str, Any], *, acknowledge_url: str | None) -> Told:
    data = payload["data"]
    attributes = data["attributes"]
    kind, about = _subject_of(data)
    name = attributes["name"]
    facts = [
        ("Incident", f"#{data['id']}"),
        ("About", about),
        ("Started", attributes.get("started_at") or ""),
    ]
    if attributes.get("resolved_at"):
        facts.append(("Resolved", attributes["resolved_at"]))
    return Told(
        state=_STATES.get(payload["event"], payload["event"].capitalize()),
        name=mask_url(name) if name == attributes.get("url") else name,
        kind=kind,
        about=about,
        cause=attributes.get("cause") or "",
        facts=facts,
        acknowledge_url=acknowledge_url if payload["event"] in _OPENING else None,
    )


def summary(payload: dict[str, Any], *, acknowledge_url: str | None) -> tuple[str, str]:
    """A title and a plain text of an incident event (chat messages, SMS)."""
    event = told(payload, acknowledge_url=acknowledge_url)
    incident = event.facts[0][1]
    lines = [event.cause, "", f"Incident {incident}, {event.about}."]
    if event.acknowledge_url:
        lines += ["", f"Acknowledge: {event.acknowledge_url}"]
    return event.title, "\n".join(lines)


def message(
    payload: dict[str, Any],
    *,
    recipient: str,
    sender: str,
    acknowledge_url: str | None,
) -> EmailMessage:
    """The e-mail of one incident event (`{"event", "data"}` as webhooks get it)."""
    event = told(payload, acknowledge_url=acknowledge_url)
    mail = new_message(subject=event.title, sender=sender, recipient=recipient)
    lines = [f"{event.state}: {event.name}", "", event.cause, ""]
    lines += [f"{label}: {value}" for label, value in event.facts]
    if event.acknowledge_url:
        lines += ["", f"Acknowledge: {event.acknowledge_url}"]
    mail.set_content("\n".join(lines) + "\n")
    team = payload["data"]["attributes"].get("team_name", "")
    mail.add_alternative(_HTML.render(event=event, team=team), subtype="html")
    return mail


async def send(mail: EmailMessage, *, settings: Settings) -> Outcome:
    """One attempt to hand the message to the SMTP server."""
    if not settings.smtp_url:
        return Outcome(error=NOT_CONFIGURED, final=True)
    import aiosmtplib

    server = parse_smtp_url(settings.smtp_url)
    started = time.perf_counter()
    try:
        _, reply = await aiosmtplib.send(
            mail,
            hostname=server.host,
            port=server.port,
            username=server.username,
            password=server.password,
            use_tls=server.use_tls,
            start_tls=server.start_tls,
            timeout=settings.delivery_timeout,
        )
    except aiosmtplib.SMTPRecipientsRefused as exc:
        return Outcome(duration_ms=_ms(started), error=f"refused: {exc}"[:500], final=True)
    except (aiosmtplib.SMTPException, OSError) as exc:
        return Outcome(duration_ms=_ms(started), error=f"{type(exc).__name__}: {exc}"[:500])
    return Outcome(status_code=250, duration_ms=_ms(started), excerpt=reply[:1024] or None)


def _ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)
