"""Visitors of password-protected pages: the password check, the session cookie, the
per-address limit on attempts.

The cookie `wp_status_{page id}` holds {page id, expiry, a fingerprint of the stored password
hash} sealed with the app's secret key (crypto.SecretBox: AES-256-GCM, so it is both signed
and opaque); it is scoped to the page's path (`/status/{subdomain}`, or `/` on the page's own
host), HttpOnly, SameSite=Lax, Secure over https, and lasts SESSION_SECONDS. Changing the
page's password (or turning protection off and on) changes the fingerprint: every cookie
issued before stops working.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime
from typing import Any, Final

import orjson
from fastapi import Request

from watchpost.context import AppContext
from watchpost.crypto import check_password
from watchpost.ratelimit import RateLimiter
from watchpost.status_pages.models import StatusPage

SESSION_SECONDS: Final = 7 * 86400
_PURPOSE: Final = "watchpost-status-page-session-v1"
_TO_COOKIE: Final = str.maketrans("+/", "-_")
_FROM_COOKIE: Final = str.maketrans("-_", "+/")


def cookie_name(page: StatusPage) -> str:
    return f"wp_status_{page.id}"


def _fingerprint(page: StatusPage) -> str:
    stored = page.password_hash or page.password_encrypted or ""
    return hashlib.sha256(f"{page.id}|{stored}".encode()).hexdigest()[:32]


def issue(ctx: AppContext, page: StatusPage, now: datetime) -> str:
    """A cookie value that lets its holder see the page until now + SESSION_SECONDS."""
    payload = {
        "v": _PURPOSE,
        "p": page.id,
        "e": int(now.timestamp()) + SESSION_SECONDS,
        "f": _fingerprint(page),
    }
    sealed = ctx.box.encrypt(orjson.dumps(payload).decode())
    return sealed.translate(_TO_COOKIE).rstrip("=")


def _opened(ctx: AppContext, value: str) -> dict[str, Any] | None:
    if len(value) > 1024:
        return None
    text = value.translate(_FROM_COOKIE)
    text += "=" * (-(len(text) - len("v1.")) % 4)
    try:
        payload = orjson.loads(ctx.box.decrypt(text))
    except (ValueError, orjson.JSONDecodeError):
        return None
    return payload if isinstance(payload, dict) else None


def valid(ctx: AppContext, request: Request, page: StatusPage, now: datetime) -> bool:
    """Whether the request carries an unexpired session cookie of the page's password."""
    value = request.cookies.get(cookie_name(page))
    if not value:
        return False
    payload = _opened(ctx, value)
    if payload is None or payload.get("v") != _PURPOSE or payload.get("p") != page.id:
        return False
    expiry = payload.get("e")
    if not isinstance(expiry, int) or expiry <= now.timestamp():
        return False
    fingerprint = payload.get("f")
    return isinstance(fingerprint, str) and secrets.compare_digest(fingerprint, _fingerprint(page))


def password_matches(ctx: AppContext, page: StatusPage, password: str) -> bool:
    """Whether password is the page's (blocking: scrypt; call it on a worker thread)."""
    if page.password_hash:
        return check_password(password, page.password_hash)
    if page.password_encrypted:  # kept from before passwords were hashed (migration 0022)
        try:
            stored = ctx.box.decrypt(page.password_encrypted)
        except ValueError:
            return False
        return secrets.compare_digest(stored.encode(), password.encode())
    return False


def login_limiter(request: Request) -> RateLimiter | None:
    """The process's limiter of password attempts per address (None: no limit), one per
    app context (a context swapped in starts afresh)."""
    ctx: AppContext = request.app.state.ctx
    per_minute = ctx.settings.status_page_login_per_minute
    held: tuple[AppContext, RateLimiter | None] | None = getattr(
        request.app.state, "page_login_limiter", None
    )
    if held is None or held[0] is not ctx:
        held = (ctx, RateLimiter(per_minute) if per_minute > 0 else None)
        request.app.state.page_login_limiter = held
    return held[1]
