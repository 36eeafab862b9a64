"""The line a page shows after an action redirected to it (POST, 303, GET): named by a code
in the URL (`?done=paused&n=12`), never by text a link could carry to someone."""

from __future__ import annotations

from typing import Final

from starlette.datastructures import QueryParams

NOTICES: Final[dict[str, str]] = {
    "paused": "Paused",
    "resumed": "Resumed",
    "deleted": "Deleted",
    "checking": "A check is due now: its result appears here within seconds",
    "unchanged": "Nothing changed: it already was so",
    "not_checked": "Not checked: it is paused",
    "saved": "Saved",
}


def notice_of(query: QueryParams) -> str | None:
    """The notice the query names ("Paused 12." with n=12), or None."""
    text = NOTICES.get(query.get("done", ""))
    if text is None:
        return None
    count = query.get("n", "")
    return f"{text} {int(count)}." if count.isdigit() and len(count) < 10 else f"{text}."


def object_notices(noun: str, **others: str) -> dict[str, str]:
    """A list page's notices of its objects ("Channel created.", "… saved.", "… deleted."),
    with others added or put in their place."""
    return {code: f"{noun} {code}." for code in ("created", "saved", "deleted")} | others


def done_query(code: str, count: int | None = None) -> str:
    """The query naming a notice, for a redirect."""
    return f"done={code}" + (f"&n={count}" if count is not None else "")
