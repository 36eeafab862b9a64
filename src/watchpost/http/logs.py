"""Request paths as the logs show them: a path segment that is a secret is masked.

Some URLs carry their credential (a heartbeat's ping URL is its token). uvicorn's access log
and our own error log write request paths; this filter masks the segment after each secret
prefix, in the message and in the traceback, before any handler formats the record.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from watchpost.masking import redact_record

MASK = "[redacted]"

# Loggers that write request paths: uvicorn's access log and our unhandled-error log.
PATH_LOGGERS = ("uvicorn.access", "watchpost.http.errors")


class RedactSecretPaths(logging.Filter):
    """Masks the segment after any of the prefixes in a record's message, arguments and
    traceback (URLs are masked for every record already: masking.install)."""

    def __init__(self, prefixes: Iterable[str]) -> None:
        super().__init__()
        alternatives = "|".join(re.escape(prefix) for prefix in sorted(set(prefixes)))
        self._pattern = re.compile(f"({alternatives})[^/?#\\s]+") if alternatives else None

    def redact(self, text: str) -> str:
        return self._pattern.sub(rf"\g<1>{MASK}", text) if self._pattern else text

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record, self.redact)
        return True


def install(prefixes: Iterable[str]) -> None:
    """Put one RedactSecretPaths on each logger of PATH_LOGGERS (once per process)."""
    redactor = RedactSecretPaths(prefixes)
    for name in PATH_LOGGERS:
        logger = logging.getLogger(name)
        for old in [f for f in logger.filters if isinstance(f, RedactSecretPaths)]:
            logger.removeFilter(old)
        logger.addFilter(redactor)
