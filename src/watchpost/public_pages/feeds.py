"""A public page's reports and their updates as an RSS 2.0 and an Atom 1.0 feed.

An entry per published status update (newest first, at most `ENTRIES`), titled with its
report's title and the update's status in Statuspage's words (statuspage_api.py), its text
the update's message and the resources it names with their status. A report without a
published update is an entry of its own, at its creation. Entries link to the report's own
page; their ids are that address plus `#update-<id>` (or `#report` for a report alone), so
a reader sees an edited update as the same entry.

Built with ElementTree (escaping done by the serializer); characters XML 1.0 does not allow
(control characters a message may hold) are dropped first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from email.utils import format_datetime
from typing import Any, Final
from xml.etree.ElementTree import Element, SubElement, tostring

from watchpost.clock import isoformat_ms
from watchpost.public_pages.snapshot import ShownReport, affected
from watchpost.public_pages.statuspage_api import ReportUrls, update_status
from watchpost.status_pages.models import StatusPage

ENTRIES: Final = 50
ATOM_NS: Final = "http://www.w3.org/2005/Atom"
RSS_TYPE: Final = "application/rss+xml; charset=utf-8"
ATOM_TYPE: Final = "application/atom+xml; charset=utf-8"
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_STATUS_WORDS: Final = {
    "investigating": "Investigating",
    "identified": "Identified",
    "resolved": "Resolved",
    "scheduled": "Scheduled",
    "in_progress": "In progress",
    "completed": "Completed",
}
_AFFECTED_WORDS: Final = {
    "resolved": "resolved",
    "degraded": "degraded",
    "downtime": "down",
    "maintenance": "under maintenance",
}


def _clean(text: str) -> str:
    return _NOT_XML.sub("", text)


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    link: str
    text: str
    published: datetime
    updated: datetime


def _affected_text(entries: list[dict[str, Any]], names: dict[int, str]) -> str:
    parts = [
        f"{names[rid]}: {_AFFECTED_WORDS.get(status, status)}"
        for rid, status in affected(entries)
        if rid in names
    ]
    return "Affected: " + "; ".join(parts) + "." if parts else ""


def entries(reports: list[ShownReport], urls: ReportUrls, names: dict[int, str]) -> list[Entry]:
    """The feed's entries, newest first."""
    found: list[Entry] = []
    for shown in reports:
        report = shown.report
        link = urls(report.id)
        title = report.title or "Status report"
        if not shown.updates:
            text = _affected_text(report.affected_resources, names)
            found.append(
                Entry(f"{link}#report", title, link, text, report.created_at, report.updated_at)
            )
        for at, update in enumerate(shown.updates):
            status = _STATUS_WORDS[update_status(shown, at)]
            affected = _affected_text(update.affected_resources, names)
            text = "\n\n".join(part for part in (update.message, affected) if part)
            found.append(
                Entry(
                    f"{link}#update-{update.id}",
                    f"{title}: {status}",
                    link,
                    text,
                    update.published_at,
                    max(update.updated_at, update.published_at),
                )
            )
    found.sort(key=lambda e: (e.published, e.id), reverse=True)
    return found[:ENTRIES]


def _text(parent: Element, tag: str, text: str, **attrs: str) -> Element:
    child = SubElement(parent, tag, attrs)
    child.text = _clean(text)
    return child


def _serialized(root: Element) -> bytes:
    body: bytes = tostring(root, encoding="utf-8", xml_declaration=True)
    return body


def _feed_updated(page: StatusPage, found: list[Entry]) -> datetime:
    return max([page.updated_at, *(e.updated for e in found)])


def rss(page: StatusPage, page_url: str, feed_url: str, found: list[Entry]) -> bytes:
    root = Element("rss", {"version": "2.0", "xmlns:atom": ATOM_NS})
    channel = SubElement(root, "channel")
    _text(channel, "title", f"{page.company_name} status")
    _text(channel, "link", page_url)
    _text(channel, "description", f"Status reports and updates of {page.company_name}")
    SubElement(
        channel, "atom:link", {"href": feed_url, "rel": "self", "type": "application/rss+xml"}
    )
    _text(channel, "lastBuildDate", format_datetime(_feed_updated(page, found), usegmt=True))
    for entry in found:
        item = SubElement(channel, "item")
        _text(item, "title", entry.title)
        _text(item, "link", entry.link)
        _text(item, "guid", entry.id, isPermaLink="false")
        _text(item, "pubDate", format_datetime(entry.published, usegmt=True))
        _text(item, "description", entry.text)
    return _serialized(root)


def atom(page: StatusPage, page_url: str, feed_url: str, found: list[Entry]) -> bytes:
    root = Element("feed", {"xmlns": ATOM_NS})
    _text(root, "id", feed_url)
    _text(root, "title", f"{page.company_name} status")
    _text(root, "subtitle", f"Status reports and updates of {page.company_name}")
    _text(root, "updated", isoformat_ms(_feed_updated(page, found)))
    SubElement(root, "link", {"rel": "self", "href": feed_url, "type": "application/atom+xml"})
    SubElement(root, "link", {"rel": "alternate", "href": page_url, "type": "text/html"})
    author = SubElement(root, "author")
    _text(author, "name", page.company_name)
    for entry in found:
        item = SubElement(root, "entry")
        _text(item, "id", entry.id)
        _text(item, "title", entry.title)
        _text(item, "updated", isoformat_ms(entry.updated))
        _text(item, "published", isoformat_ms(entry.published))
        SubElement(item, "link", {"rel": "alternate", "href": entry.link, "type": "text/html"})
        _text(item, "content", entry.text, type="text")
    return _serialized(root)
