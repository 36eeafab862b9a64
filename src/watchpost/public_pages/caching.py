"""ETag and Cache-Control of public status page answers.

Every answer carries a strong ETag (a SHA-256 of its body) and Cache-Control; a request whose
If-None-Match names that ETag (or `*`) gets 304 with no body. Public pages may be kept by any
cache for PUBLIC_MAX_AGE seconds; a password-protected page's answers are `private, no-cache`
(a browser keeps them and revalidates, a shared cache never stores them) and vary by Cookie.
Error pages (404) are public for a short while; the password form and 403 are never stored.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Final, NamedTuple

from fastapi import Request
from fastapi.responses import Response

PUBLIC_MAX_AGE: Final = 30
PUBLIC: Final = f"public, max-age={PUBLIC_MAX_AGE}"
PRIVATE: Final = "private, no-cache"
NO_STORE: Final = "no-store"
HTML: Final = "text/html; charset=utf-8"


class Html(NamedTuple):
    """A rendered page and the Content-Security-Policy that lets exactly it render (its
    inline stylesheets by hash, its logos' origins: templates.render)."""

    body: str
    policy: str


def etag(body: bytes) -> str:
    """A strong validator of the body: 128 bits of its SHA-256, quoted."""
    digest = hashlib.sha256(body).digest()[:16]
    return '"' + base64.urlsafe_b64encode(digest).decode().rstrip("=") + '"'


def _matches(header: str, tag: str) -> bool:
    """If-None-Match's weak comparison: W/"x" and "x" both name "x"."""
    for candidate in header.split(","):
        text = candidate.strip()
        if text == "*":
            return True
        if text.startswith("W/"):
            text = text[2:]
        if text == tag:
            return True
    return False


def cache_headers(body: bytes, *, private: bool, control: str | None = None) -> dict[str, str]:
    headers = {"ETag": etag(body), "Cache-Control": control or (PRIVATE if private else PUBLIC)}
    if private:
        headers["Vary"] = "Cookie"
    return headers


def cached(
    request: Request,
    body: bytes | str | Html,
    media_type: str = HTML,
    *,
    private: bool,
    status: int = 200,
    control: str | None = None,
) -> Response:
    """The answer with its ETag and Cache-Control; 304 when the request already has it (the
    browser keeps the policy it stored with the page: the ETag covers what it derives from)."""
    raw = _raw(body)
    headers = cache_headers(raw, private=private, control=control)
    if status == 200 and _matches(request.headers.get("if-none-match", ""), headers["ETag"]):
        return Response(status_code=304, headers=headers)
    if isinstance(body, Html):
        headers["Content-Security-Policy"] = body.policy
    if request.method == "HEAD":
        headers["Content-Length"] = str(len(raw))
        return Response(status_code=status, headers=headers, media_type=media_type)
    return Response(raw, status_code=status, headers=headers, media_type=media_type)


def uncached(body: Html, status: int, *, control: str) -> Response:
    """An answer made without the request (error pages): ETag and the given Cache-Control."""
    raw = _raw(body)
    headers = cache_headers(raw, private=False, control=control)
    headers["Content-Security-Policy"] = body.policy
    return Response(raw, status_code=status, headers=headers, media_type=HTML)


def _raw(body: bytes | str | Html) -> bytes:
    if isinstance(body, Html):
        return body.body.encode()
    return body.encode() if isinstance(body, str) else body
