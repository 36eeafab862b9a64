"""Request paths as the logs show them: a path segment that is a secret is masked.

Some URLs carry their credential (a heartbeat's ping URL is its token). uvicorn's access log
and our own error log write request paths; this filter masks the segment after each secret
prefix, in the message and in the traceback, before any handler formats the record.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

MASK = "[redacted]"

# Loggers that write request paths: uvicorn's access log and our unhandled-error log.
PATH_LOGGERS = ("uvicorn.access", "watchpost.http.errors")


class RedactSecretPaths(logging.Filter):
    """Masks the segment after any of the prefixes in every string argument of a record."""

    def __init__(self, prefixes: Iterable[str]) -> None:
        super().__init__()
        alternatives = "|".join(re.escape(prefix) for prefix in sorted(set(prefixes)))
        self._pattern = re.compile(f"({alternatives})[^/?#\\s]+") if alternatives else None

    def redact(self, text: str) -> str:
        return self._pattern.sub(rf"\g<1>{MASK}", text) if self._pattern else text

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                self.redact(arg) if isinstance(arg, str) else arg for arg in record.args
            )
        if isinstance(record.msg, str):
            record.msg = self.redact(record.msg)
        if record.exc_info and not record.exc_text:
            # A traceback may quote the path too (an exception's message, a local's repr).
            # Formatters reuse a record's exc_text, so the masked text is what they print.
            record.exc_text = self.redact(_FORMATTER.formatException(record.exc_info))
        return True


_FORMATTER = logging.Formatter()


def install(prefixes: Iterable[str]) -> None:
    """Put one RedactSecretPaths on each logger of PATH_LOGGERS (once per process)."""
    redactor = RedactSecretPaths(prefixes)
    for name in PATH_LOGGERS:
        logger = logging.getLogger(name)
        for old in [f for f in logger.filters if isinstance(f, RedactSecretPaths)]:
            logger.removeFilter(old)
        logger.addFilter(redactor)
