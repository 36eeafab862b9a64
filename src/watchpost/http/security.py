"""The security headers of every answer, added in one place (SecurityHeaders, the outermost
middleware) whichever route, error handler or middleware made the answer.

- `X-Content-Type-Options: nosniff` on every answer: a browser takes each for the type it
  says (a JSON or text answer is never run as a script or read as HTML).
- HTML: a strict `Content-Security-Policy` (PAGE_POLICY: nothing but the server's own
  images and stylesheets, forms posting to the server, never framed) unless the route chose
  its own, and `Referrer-Policy: same-origin` (the acknowledge and subscription links carry
  their token in the path: another site never sees it in a Referer).
- Any other answer with a body: `default-src 'none'` (an SVG badge, a feed or JSON opened as
  a document loads and runs nothing, and is never framed).

A page that inlines a stylesheet or a script names exactly that text in its own policy by
hash (html_policy(style_src=[source_hash(css)])): hashes are taken of what the server put in
the page, never of what is found in it, so nothing injected into a page can run or style it.
A 304 gets no policy: the browser keeps the one stored with the answer it revalidates.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from typing import Final

from starlette.types import Message, Receive, Scope, Send

from watchpost.http.middleware import HttpMiddleware

PAGE_DIRECTIVES: Final[dict[str, tuple[str, ...]]] = {
    "default-src": ("'none'",),
    "img-src": ("'self'", "data:"),
    "style-src": ("'self'",),
    "form-action": ("'self'",),
    "frame-ancestors": ("'none'",),
    "base-uri": ("'none'",),
}
"""What an HTML page may do unless its route says otherwise: no script at all."""
OTHER_POLICY: Final = "default-src 'none'; frame-ancestors 'none'"
REFERRER_POLICY: Final = "same-origin"

CSP: Final = b"content-security-policy"
NOSNIFF: Final = (b"x-content-type-options", b"nosniff")
_CONTENT_TYPE: Final = b"content-type"
_REFERRER: Final = b"referrer-policy"


def source_hash(text: str) -> str:
    """The CSP source naming an inline `<style>` or `<script>` of exactly this text."""
    digest = hashlib.sha256(text.encode()).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def html_policy(**sources: Iterable[str]) -> str:
    """PAGE_DIRECTIVES with more sources, a directive per keyword (`_` for `-`):
    html_policy(style_src=[source_hash(css)], img_src=["https://cdn.example"]). A directive
    given `["'none'"]` replaces the default's sources (frame_ancestors=["'none'"])."""
    directives = dict(PAGE_DIRECTIVES)
    for name, added in sources.items():
        directive = name.replace("_", "-")
        values = tuple(added)
        kept = directives.get(directive, ())
        joined = values if "'none'" in values or kept == ("'none'",) else kept + values
        directives[directive] = tuple(dict.fromkeys(joined))
    return "; ".join(" ".join((name, *values)) for name, values in directives.items())


PAGE_POLICY: Final = html_policy()


class SecurityHeaders(HttpMiddleware):
    """Adds the headers above to each answer's start, keeping any the route set itself."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = _secured(list(message.get("headers", ())))
            await send(message)

        await self.app(scope, receive, secured)


_PAGE_CSP: Final = (CSP, PAGE_POLICY.encode())
_OTHER_CSP: Final = (CSP, OTHER_POLICY.encode())
_REFERRER_POLICY: Final = (_REFERRER, REFERRER_POLICY.encode())


def _secured(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    content_type: bytes | None = None
    has_policy = has_referrer = has_nosniff = False
    for name, value in headers:
        lowered = name.lower()
        if lowered == _CONTENT_TYPE:
            content_type = value
        elif lowered == CSP:
            has_policy = True
        elif lowered == _REFERRER:
            has_referrer = True
        elif lowered == NOSNIFF[0]:
            has_nosniff = True
    if not has_nosniff:
        headers.append(NOSNIFF)
    if content_type is None:
        return headers  # no body (a 304, a redirect): no document to police
    html = content_type.lower().startswith(b"text/html")
    if not has_policy:
        headers.append(_PAGE_CSP if html else _OTHER_CSP)
    if html and not has_referrer:
        headers.append(_REFERRER_POLICY)
    return headers
