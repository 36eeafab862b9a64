"""Reading a console form as a browser submits it: every named input with its value."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import httpx


class _Form(HTMLParser):
    """The named fields of the form posting to `action` (the page's other forms ignored)."""

    def __init__(self, action: str) -> None:
        super().__init__()
        self.action = action
        self.inside = False
        self.fields: list[tuple[str, str]] = []
        self.select: str | None = None
        self.options: list[tuple[str, bool]] = []
        self.textarea: str | None = None
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "form":
            self.inside = a.get("method") == "post" and a.get("action") == self.action
        if not self.inside:
            return
        if tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.fields.append((a["name"], a.get("value", "on")))
            else:
                self.fields.append((a["name"], a.get("value", "")))
        elif tag == "select":
            self.select, self.options = a.get("name"), []
        elif tag == "option" and self.select is not None:
            self.options.append((a.get("value", ""), "selected" in a))
        elif tag == "textarea":
            self.textarea, self.text = a.get("name"), ""

    def handle_data(self, data: str) -> None:
        if self.textarea is not None:
            self.text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select" and self.select is not None:
            chosen = [value for value, selected in self.options if selected] or [
                value for value, _ in self.options[:1]
            ]
            self.fields += [(self.select, value) for value in chosen]
            self.select = None
        elif tag == "textarea" and self.textarea is not None:
            self.fields.append((self.textarea, self.text.removeprefix("\n")))
            self.textarea = None


def form_of(html: str, action: str) -> list[tuple[str, str]]:
    parser = _Form(action)
    parser.feed(html)
    assert parser.fields, f"no form posting to {action}"
    return parser.fields


def filled(fields: list[tuple[str, str]], **values: Any) -> list[tuple[str, str]]:
    """The fields with some replaced (a list value: several boxes ticked)."""
    kept = [(name, value) for name, value in fields if name not in values]
    for name, value in values.items():
        items = value if isinstance(value, list) else [value]
        kept += [(name, str(item)) for item in items if item is not None]
    return kept


async def post_form(
    client: httpx.AsyncClient, page: str, action: str, **values: Any
) -> httpx.Response:
    """GETs the page, fills its form as a person would and posts it."""
    shown = await client.get(page)
    assert shown.status_code == 200, shown.text[:500]
    fields = filled(form_of(shown.text, action), **values)
    return await client.post(action, content=_encode(fields), headers=_FORM)


_FORM = {"content-type": "application/x-www-form-urlencoded"}


def _encode(fields: list[tuple[str, str]]) -> str:
    from urllib.parse import urlencode

    return urlencode(fields)


def error_beside(html: str, name: str) -> str:
    """The error message shown beside the field `name` (empty when none)."""
    found = re.search(rf'<p class="field-error" id="{re.escape(name)}-error">(.*?)</p>', html, re.S)
    if not found:
        return ""
    text = re.sub(r"<[^>]+>", "", found.group(1)).replace("Error:", "").strip()
    return (
        text.replace("&#39;", "'")
        .replace("&#34;", '"')
        .replace("&quot;", '"')
        .replace("&amp;", "&")
    )
