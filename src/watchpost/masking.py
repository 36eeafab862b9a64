"""URLs as log lines and error texts show them: no user-info, no query value.

A monitor's URL may carry its credentials (`http://bob:PASSWORD@host/x?token=TOKEN`): the
whole user-info (a user name alone is often a token) and every query (and fragment) value
are replaced by `***`, the rest is kept as written, so a line still says which server and
path it is about. Every log line and error text that may hold a URL goes through `mask_urls`:
every log record of the process (`install()`, called by the app and the command line, puts it
in the record factory) and every probe's error text (probes/base.py).
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

MASK = "***"

# A URL inside free text: a scheme, `://`, then anything up to white space or a quote.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'<>`]+")


def _mask_pairs(text: str) -> str:
    """`a=1&b&c=` → `a=***&***&c=***`: the names stay, every value goes (a bare item may be
    a token of its own)."""
    masked = []
    for item in text.split("&"):
        name, equals, _ = item.partition("=")
        masked.append(f"{name}={MASK}" if equals else (MASK if item else item))
    return "&".join(masked)


def mask_url(url: str) -> str:
    """url with its user-info and its query and fragment values replaced by `***`."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        return url
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:end], rest[end:]
    _, at, host = authority.rpartition("@")
    if at:
        authority = f"{MASK}@{host}"
    tail, hash_mark, fragment = tail.partition("#")
    path, question, query = tail.partition("?")
    masked = scheme + separator + authority + path
    if question:
        masked += "?" + _mask_pairs(query)
    if hash_mark:
        masked += "#" + _mask_pairs(fragment)
    return masked


def mask_urls(text: str) -> str:
    """text with every URL in it masked by mask_url."""
    return _URL.sub(lambda found: mask_url(found.group()), text) if "://" in text else text


Redact = Callable[[str], str]


def redact_record(record: logging.LogRecord, redact: Redact) -> None:
    """The record's message, text arguments and traceback passed through redact, before any
    handler formats it (formatters reuse a record's exc_text, so the redacted text is what
    they print)."""
    if isinstance(record.args, tuple):
        record.args = tuple(redact(arg) if isinstance(arg, str) else arg for arg in record.args)
    if isinstance(record.msg, str):
        record.msg = redact(record.msg)
    if record.exc_info and not record.exc_text:
        # A traceback may quote a URL too (an exception's message, a local's repr).
        record.exc_text = _FORMATTER.formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text)


_FORMATTER = logging.Formatter()


def install() -> None:
    """Every log record of the process, whichever logger writes it (ours, uvicorn's, a
    library's), is made with its URLs masked: one record factory, installed once."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "masks_urls", False):
        return

    def masked_record(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        redact_record(record, mask_urls)
        return record

    masked_record.masks_urls = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(masked_record)


@contextmanager
def apprise_unlogged() -> Iterator[None]:
    """Apprise's own log lines of this thread dropped while Apprise reads a URL: a plugin
    refusing the URL names its token, and Apprise, when it catches that, the parsed URL,
    password and all (delivery/chat.py, delivery/phone_targets.py, a channel's URL checked in
    channels/schemas.py). Other threads' sends keep theirs: their LogCapture turns them into
    the attempts' errors."""
    thread = threading.get_ident()

    def others(record: logging.LogRecord) -> bool:
        return record.thread != thread

    logger = logging.getLogger("apprise")
    logger.addFilter(others)
    try:
        yield
    finally:
        logger.removeFilter(others)
