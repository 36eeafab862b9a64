"""What a subscriber receives: the e-mails (a text and an HTML part, the HTML escaped by
Jinja2's autoescaping: titles and messages are written by people) and the webhook bodies.

Every notification mail carries its unsubscribe link in the text, and RFC 8058's one-click
headers (`List-Unsubscribe` with that link, `List-Unsubscribe-Post`), so a mail client's
unsubscribe button works without a visit.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any, Final

from watchpost.delivery.mail import new_message
from watchpost.inline_templates import InlineTemplate

SUBJECTS: Final = {
    "report_created": "New incident",
    "report_updated": "Update",
    "report_resolved": "Resolved",
    "maintenance_started": "Maintenance started",
    "maintenance_ended": "Maintenance completed",
}
STATES: Final = {
    "scheduled": "Scheduled",
    "in_progress": "In progress",
    "resolved": "Resolved",
    "completed": "Completed",
}


@dataclass(frozen=True)
class Links:
    page: str
    unsubscribe: str


def _heading(payload: dict[str, Any]) -> str:
    event = payload["event"]
    attributes = payload["data"]["attributes"]
    if event == "report_created" and attributes["report_type"] == "maintenance":
        return "Maintenance scheduled" if attributes["state"] == "scheduled" else "Maintenance"
    return str(SUBJECTS.get(event, event))


_HTML = InlineTemplate(
    """<!doctype html>
<html lang="en"><body style="font-family: sans-serif; max-width: 40em">
<h2>{{ heading }}: {{ title }}</h2>
<p><strong>{{ state }}</strong>{% if window %} · {{ window }}{% endif %}</p>
{% if message %}<p style="white-space: pre-wrap">{{ message }}</p>{% endif %}
{% if affected %}<ul>
{% for item in affected %}<li>{{ item.name }}: {{ item.status }}</li>
{% endfor %}</ul>{% endif %}
<p><a href="{{ links.page }}">{{ company }} status page</a></p>
<p style="color: #777; font-size: small">You subscribed to updates of this status page.
<a href="{{ links.unsubscribe }}">Unsubscribe</a></p>
</body></html>
"""
)

_CONFIRM_HTML = InlineTemplate(
    """<!doctype html>
<html lang="en"><body style="font-family: sans-serif; max-width: 40em">
<h2>Confirm your subscription</h2>
<p>Someone, probably you, asked to receive updates of the {{ company }} status page at this
address.</p>
<p><a href="{{ confirm_url }}">Confirm the subscription</a></p>
<p style="color: #777; font-size: small">Not you? Ignore this e-mail: nothing is sent
without a confirmation.</p>
</body></html>
"""
)


def _base(sender: str, recipient: str, subject: str) -> EmailMessage:
    mail = new_message(subject=subject, sender=sender, recipient=recipient)
    mail["Auto-Submitted"] = "auto-generated"
    return mail


def notification_mail(
    payload: dict[str, Any], *, sender: str, recipient: str, links: Links
) -> EmailMessage:
    """The e-mail of a report's news (`payload`: the event as recorded)."""
    attributes = payload["data"]["attributes"]
    company = payload["status_page"]["company_name"] or payload["status_page"]["subdomain"]
    heading = _heading(payload)
    title = attributes["title"] or "Status report"
    update = payload.get("status_update")
    message = update["attributes"]["message"] if update else ""
    state = STATES.get(attributes["state"], attributes["state"])
    window = attributes["starts_at"]
    if attributes["ends_at"]:
        window += f" to {attributes['ends_at']}"
    affected = attributes["affected_resources"]
    mail = _base(sender, recipient, f"[{company}] {heading}: {title}")
    mail["List-Unsubscribe"] = f"<{links.unsubscribe}>"
    mail["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    lines = [f"{heading}: {title}", "", f"{state} · {window} (UTC)", ""]
    if message:
        lines += [message, ""]
    lines += [f"- {item['name']}: {item['status']}" for item in affected]
    lines += ["", f"Status page: {links.page}", "", f"Unsubscribe: {links.unsubscribe}"]
    mail.set_content("\n".join(lines) + "\n")
    mail.add_alternative(
        _HTML.render(
            heading=heading,
            title=title,
            state=state,
            window=f"{window} (UTC)",
            message=message,
            affected=affected,
            links=links,
            company=company,
        ),
        subtype="html",
    )
    return mail


def confirmation_mail(
    company: str, *, sender: str, recipient: str, confirm_url: str
) -> EmailMessage:
    mail = _base(sender, recipient, f"Confirm your subscription to {company} status updates")
    mail.set_content(
        f"Someone, probably you, asked to receive updates of the {company} status page at "
        f"this address.\n\nConfirm the subscription: {confirm_url}\n\nNot you? Ignore this "
        "e-mail: nothing is sent without a confirmation.\n"
    )
    mail.add_alternative(
        _CONFIRM_HTML.render(company=company, confirm_url=confirm_url), subtype="html"
    )
    return mail


def webhook_body(payload: dict[str, Any], *, links: Links) -> dict[str, Any]:
    """A webhook subscriber's body: the event, the report, its update, the page."""
    return {
        "event": payload["event"],
        "status_report": payload["data"],
        "status_update": payload.get("status_update"),
        "status_page": {**payload["status_page"], "url": links.page},
        "unsubscribe_url": links.unsubscribe,
    }


def webhook_confirmation(
    status_page: dict[str, Any], *, page_url: str, confirm_url: str, resource_ids: list[int]
) -> dict[str, Any]:
    """The body sent to a webhook that signed up: POST to confirm_url to confirm."""
    return {
        "event": "subscription_requested",
        "status_page": {**status_page, "url": page_url},
        "confirm_url": confirm_url,
        "resource_ids": [str(rid) for rid in resource_ids],
    }
