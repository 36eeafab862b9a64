"""Shields-style SVG badges of a page's state and of one resource's status.

A flat badge: the label (the company or resource name) on grey, the state in words on its
colour. Self-contained (no font, image or script loaded; no external request); text widths
come from a table of Verdana 11 px advance widths, and each text is also given that width
(`textLength`), so the badge looks right whatever font the viewer substitutes.
"""

from __future__ import annotations

import re
from typing import Final

from watchpost.status_pages.availability import (
    DEGRADED,
    DOWNTIME,
    MAINTENANCE,
    NOT_MONITORED,
    OPERATIONAL,
)

SVG_TYPE: Final = "image/svg+xml; charset=utf-8"
MAX_LABEL: Final = 48
"""Characters of a label shown (longer ones end in an ellipsis)."""

GREEN: Final = "#3c9d40"
YELLOW: Final = "#b48a00"
ORANGE: Final = "#d5621b"
RED: Final = "#d0382b"
BLUE: Final = "#1f6fc5"
GREY: Final = "#6b6b6b"
"""Colours dark enough for white text (contrast ≥ 3:1 at 11 px bold-free text beside grey)."""

RESOURCE_BADGES: Final[dict[str, tuple[str, str]]] = {
    OPERATIONAL: ("operational", GREEN),
    DEGRADED: ("degraded", YELLOW),
    DOWNTIME: ("down", RED),
    MAINTENANCE: ("maintenance", BLUE),
    NOT_MONITORED: ("not monitored", GREY),
}
"""A resource's status → the badge's words and colour."""
PAGE_BADGES: Final[dict[str, tuple[str, str]]] = {
    "none": ("operational", GREEN),
    "minor": ("degraded", YELLOW),
    "major": ("partial outage", ORANGE),
    "critical": ("major outage", RED),
    "maintenance": ("maintenance", BLUE),
    NOT_MONITORED: ("not monitored", GREY),
}
"""A page's Statuspage indicator (or not_monitored: nothing shown is monitored now) → the
badge's words and colour."""

_WIDTHS: Final[dict[str, float]] = {
    **dict.fromkeys(" ", 3.9),
    **dict.fromkeys("!|.,:;'il", 3.0),
    **dict.fromkeys("fjrtI()[]{}`", 4.3),
    **dict.fromkeys('"/\\-', 5.0),
    **dict.fromkeys("csz?JL*^", 5.8),
    **dict.fromkeys("abdeghknopquvxy_0123456789$+<=>~#", 6.8),
    **dict.fromkeys("EFPTYZ", 6.9),
    **dict.fromkeys("ABKRSVX&", 7.6),
    **dict.fromkeys("CDGHNOQU", 8.4),
    **dict.fromkeys("w", 8.9),
    **dict.fromkeys("M%", 9.6),
    **dict.fromkeys("m@", 10.6),
    **dict.fromkeys("W", 11.0),
}
_WIDE: Final = 11.0
"""An advance for characters outside the table that are wide (CJK, emoji)."""
_OTHER: Final = 7.0
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def text_width(text: str) -> float:
    return sum(_WIDTHS.get(c, _WIDE if ord(c) >= 0x1100 else _OTHER) for c in text)


def _shown(text: str) -> str:
    text = " ".join(_NOT_XML.sub("", text).split())
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1].rstrip() + "…"


def badge(label: str, message: str, colour: str) -> str:
    """The badge's SVG text."""
    from xml.sax.saxutils import escape, quoteattr  # at the first badge: xml.sax is ≈ 0.6 MB

    label, message = _shown(label) or "status", _shown(message)
    label_w = round(text_width(label)) + 10
    message_w = round(text_width(message)) + 10
    width = label_w + message_w
    title = escape(f"{label}: {message}")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="20" role="img" '
        f"aria-label={quoteattr(f'{label}: {message}')}>",
        f"<title>{title}</title>",
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" '
        'stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>',
        f'<clipPath id="r"><rect width="{width}" height="20" rx="3" fill="#fff"/></clipPath>',
        '<g clip-path="url(#r)">',
        f'<rect width="{label_w}" height="20" fill="#555"/>',
        f'<rect x="{label_w}" width="{message_w}" height="20" fill="{colour}"/>',
        f'<rect width="{width}" height="20" fill="url(#s)"/>',
        "</g>",
        '<g fill="#fff" text-anchor="middle" '
        'font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">',
        *_text(label, 0, label_w),
        *_text(message, label_w, message_w),
        "</g></svg>",
    ]
    return "".join(parts)


def _text(text: str, x: int, width: int) -> list[str]:
    centre = x + width / 2
    from xml.sax.saxutils import escape

    length = max(width - 10, 1)
    shown = escape(text)
    return [
        f'<text x="{centre:g}" y="15" fill="#010101" fill-opacity=".3" '
        f'textLength="{length}" aria-hidden="true">{shown}</text>',
        f'<text x="{centre:g}" y="14" textLength="{length}">{shown}</text>',
    ]


def resource_badge(name: str, status: str) -> str:
    words, colour = RESOURCE_BADGES.get(status, RESOURCE_BADGES[NOT_MONITORED])
    return badge(name, words, colour)


def page_badge(name: str, state: str) -> str:
    """state: a Statuspage indicator, or not_monitored."""
    words, colour = PAGE_BADGES[state]
    return badge(name, words, colour)
