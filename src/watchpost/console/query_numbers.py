"""Whole numbers read from a console page's URL (a page number, a page size): anything that
is not a plain ASCII number is the default, and a number is clamped to [1, high]. A console
page is not an API: a bad value shows the first page, never an error (and never a 500: `"²"`
is a digit to `str.isdigit` but not to `int`, and a 5,000-digit number exceeds what `int`
converts)."""

from __future__ import annotations

MAX_DIGITS = 9


def number(raw: str | None, default: int = 1, high: int = 10**9) -> int:
    text = (raw or "").strip()
    if not text.isascii() or not text.isdigit() or len(text) > MAX_DIGITS:
        return default
    return max(1, min(int(text), high))
