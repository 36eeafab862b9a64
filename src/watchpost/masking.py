"""URLs as log lines and error texts show them: no password, no query value.

A monitor's URL may carry its credentials (`http://bob:PASSWORD@host/x?token=TOKEN`): the
user-info password and every query (and fragment) value are replaced by `***`, the rest is
kept as written, so a line still says which server and path it is about. Every log line and
error text that may hold a URL goes through `mask_urls` (incident log lines, probe errors,
delivery log lines, the unhandled-error log).
"""

from __future__ import annotations

import logging
import re

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
    """url with its user-info password and query and fragment values replaced by `***`."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        return url
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:end], rest[end:]
    user_info, at, host = authority.rpartition("@")
    if at:
        user, colon, _ = user_info.partition(":")
        authority = f"{user}:{MASK}@{host}" if colon else authority
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


class MaskUrls(logging.Filter):
    """Masks the URLs of a record's message, arguments and traceback before any handler
    formats it. On the loggers of modules whose lines may quote a URL (an incident's name,
    a probe's or a delivery's error, an exception's text)."""

    def redact(self, text: str) -> str:
        return mask_urls(text)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                self.redact(arg) if isinstance(arg, str) else arg for arg in record.args
            )
        if isinstance(record.msg, str):
            record.msg = self.redact(record.msg)
        if record.exc_info and not record.exc_text:
            # A traceback may quote a URL too (an exception's message, a local's repr).
            # Formatters reuse a record's exc_text, so the masked text is what they print.
            record.exc_text = self.redact(_FORMATTER.formatException(record.exc_info))
        return True


_FORMATTER = logging.Formatter()


def masked_logger(name: str) -> logging.Logger:
    """The logger of a module whose lines may quote a URL, with MaskUrls on it."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, MaskUrls) for f in logger.filters):
        logger.addFilter(MaskUrls())
    return logger
