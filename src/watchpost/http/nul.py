"""NUL characters stop at the door: no path or query string holding one reaches a route.

PostgreSQL's text cannot hold NUL (the driver refuses the statement: a 500 whose traceback
quoted the SQL parameters, ping tokens included), SQLite's can, and no stored value holds
one, so both backends refuse it alike before any lookup. NUL is the only character
PostgreSQL's text refuses: bytes that are not UTF-8 are decoded as U+FFFD before they are
text. Bodies are refused where they are parsed (http/body.py: JSON and forms).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qsl

from fastapi.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from watchpost.errors import InvalidRequest
from watchpost.http.errors import json_error
from watchpost.http.middleware import HttpMiddleware

NUL = "\x00"
PATH_NOT_FOUND = "Not found: no path holds a NUL character."


def has_nul(query_string: bytes) -> bool:
    return b"%00" in query_string or b"\x00" in query_string


def query_problems(query_string: bytes) -> InvalidRequest:
    """The 422 naming each parameter whose value holds NUL (read as Starlette reads it)."""
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    problems: list[tuple[str | None, str]] = [
        (key, f"{key} must not contain NUL characters")
        for key in dict.fromkeys(key for key, value in pairs if NUL in value and NUL not in key)
    ]
    if any(NUL in key for key, _ in pairs) or not problems:
        problems.append((None, "query parameter names must not contain NUL characters"))
    return InvalidRequest(problems)


class RefuseNul(HttpMiddleware):
    """A path holding NUL names nothing: 404 (under `html_prefix`, the public pages', the
    HTML page `html_not_found` makes, as any unknown path of a page; else JSON). A query
    string holding NUL is a 422 naming the parameters."""

    def __init__(
        self, app: ASGIApp, *, html_prefix: str, html_not_found: Callable[[], Response]
    ) -> None:
        super().__init__(app)
        self.html_prefix = html_prefix
        self.html_not_found = html_not_found

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        query: bytes = scope.get("query_string", b"")
        response: Response | None = None
        if NUL in path:
            if path.startswith(self.html_prefix):
                response = self.html_not_found()
            else:
                response = json_error(404, {"errors": PATH_NOT_FOUND})
        elif has_nul(query):
            invalid = query_problems(query)
            response = json_error(invalid.status, invalid.body)
        if response is None:
            await self.app(scope, receive, send)
        else:
            await response(scope, receive, send)
