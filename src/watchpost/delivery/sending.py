"""Sending one delivery attempt: the request a webhook's settings describe, signed, over the
destination policy's aiohttp client; its outcome, never an exception.

2xx is success; anything else (3xx included: redirects are not followed) is a failure, as are
timeouts and connection errors. Only the first KB of a response is read.
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final
from urllib.parse import urlsplit

import aiohttp
import orjson

from watchpost import __version__
from watchpost.crypto import SecretBox
from watchpost.delivery.claims import Job
from watchpost.masking import mask_urls
from watchpost.outbound import DeniedAddress
from watchpost.probes.http import HttpClient, connection_error
from watchpost.webhooks import signing, templates

EXCERPT_BYTES: Final = 1024
USER_AGENT: Final = f"Watchpost-Webhooks/{__version__}"
METHODS_WITHOUT_BODY: Final = frozenset({"get", "head"})

CLIENT = HttpClient()
"""The deliveries' own pooled session (the probes keep theirs)."""


@dataclass(frozen=True)
class Outcome:
    status_code: int | None = None
    duration_ms: int = 0
    excerpt: str | None = None
    error: str | None = None
    retry_after: float | None = None
    """Seconds the receiver asked to wait (Retry-After on 429 and 503)."""
    final: bool = False
    """No retry can help (the template does not render)."""

    def __post_init__(self) -> None:
        # Whatever wrote it (a library's exception included), an error text shows no URL's
        # password or query values.
        if self.error is not None:
            object.__setattr__(self, "error", mask_urls(self.error))

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    headers: dict[str, str]
    body: bytes


def host_of(url: str) -> str:
    """The URL's host, for log lines (a URL's path and query may hold credentials)."""
    return urlsplit(url).hostname or "?"


def _signing_keys(job: Job, box: SecretBox, now: datetime) -> list[str]:
    keys = []
    if job.signing_secret_encrypted is not None:
        keys.append(box.decrypt(job.signing_secret_encrypted))
    if (
        job.previous_secret_encrypted is not None
        and job.previous_secret_expires_at is not None
        and now < job.previous_secret_expires_at
    ):
        keys.append(box.decrypt(job.previous_secret_encrypted))
    return keys


def build(job: Job, *, box: SecretBox, now: datetime) -> Request:
    """The request of one attempt at `now`; TemplateFailed when a template does not render."""
    assert job.url is not None, "a webhook delivery"
    timestamp = int(now.timestamp())
    method = job.http_method or "post"
    variables = {
        "event": job.event,
        "trigger_type": job.trigger_type,
        "data": job.payload.get("data"),
        "payload": job.payload,
        "webhook_id": job.message_id,
        "timestamp": timestamp,
    }
    if method in METHODS_WITHOUT_BODY:
        body = b""
    elif job.body_template is not None:
        body = templates.render(job.body_template, variables).encode()
    else:
        body = orjson.dumps(job.payload)
    headers = {"User-Agent": USER_AGENT}
    if body:
        headers["Content-Type"] = "application/json"
    for header in job.headers_template or []:
        headers[header["name"]] = templates.render(header["value"], variables)
    # Last, so that no template replaces them.
    if job.auth_username is not None:
        password = box.decrypt(job.auth_password_encrypted) if job.auth_password_encrypted else ""
        credentials = base64.b64encode(f"{job.auth_username}:{password}".encode()).decode()
        headers["Authorization"] = f"Basic {credentials}"
    headers.update(signing.headers(_signing_keys(job, box, now), job.message_id, timestamp, body))
    return Request(method=method.upper(), url=job.url, headers=headers, body=body)


def retry_after(value: str | None, now: datetime) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP date."""
    if not value:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


async def send(job: Job, *, box: SecretBox, now: datetime, timeout: float) -> Outcome:
    """One attempt: build, send, read the outcome."""
    try:
        request = build(job, box=box, now=now)
    except templates.TemplateFailed as exc:
        return Outcome(error=str(exc), final=True)
    return await post(request, now=now, timeout=timeout)


async def post(request: Request, *, now: datetime, timeout: float) -> Outcome:
    """Send one request over the deliveries' client; its outcome, never an exception."""
    started = time.perf_counter()

    def elapsed() -> int:
        return round((time.perf_counter() - started) * 1000)

    try:
        async with CLIENT.session().request(
            request.method,
            request.url,
            data=request.body or None,
            headers=request.headers,
            allow_redirects=False,
            timeout=aiohttp.ClientTimeout(total=timeout),
        ) as response:
            chunk = await response.content.read(EXCERPT_BYTES)
            wait = (
                retry_after(response.headers.get("Retry-After"), now)
                if response.status in (429, 503)
                else None
            )
            return Outcome(
                status_code=response.status,
                duration_ms=elapsed(),
                excerpt=chunk.decode("utf-8", errors="replace") or None,
                error=None if 200 <= response.status < 300 else f"HTTP {response.status}",
                retry_after=wait,
            )
    except TimeoutError:
        return Outcome(duration_ms=elapsed(), error=f"timed out after {timeout:g} s")
    except aiohttp.ClientConnectorError as exc:
        cause = connection_error(exc)
        return Outcome(duration_ms=elapsed(), error=f"could not connect: {cause}")
    except DeniedAddress as exc:
        return Outcome(duration_ms=elapsed(), error=str(exc))
    except (aiohttp.ClientError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
        return Outcome(duration_ms=elapsed(), error=f"{type(exc).__name__}: {exc}"[:500])
