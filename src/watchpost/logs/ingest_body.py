"""Reading an ingestion body: at most `limit` bytes after decompression, enforced while the
body streams in, so neither a large upload nor a gzip bomb is ever held whole.

`Content-Encoding` may be `gzip` (concatenated members too), `deflate` (zlib) or absent; the
limit applies to the decoded bytes, and the bytes on the wire may not exceed it either. A
declared `Content-Length` over the limit is refused before a byte is read.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Callable
from typing import Final

MAX_BODY_BYTES: Final = 20 * 1024 * 1024
"""The most bytes one ingestion request may carry, decompressed (20 MiB)."""

ENCODINGS: Final = ("", "identity", "gzip", "x-gzip", "deflate")


class BodyTooLarge(Exception):
    """More than the limit: 413."""


class BadEncoding(Exception):
    """A Content-Encoding not taken (415), or a compressed stream that is corrupt (400/406)."""

    def __init__(self, message: str, *, unsupported: bool = False) -> None:
        super().__init__(message)
        self.unsupported = unsupported


def _decoder(encoding: str) -> zlib._Decompress | None:
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    return None


def content_encoding(header: str) -> str:
    """The one encoding named (lower-cased); BadEncoding for any other or for a chain."""
    encoding = header.strip().lower()
    if encoding not in ENCODINGS:
        raise BadEncoding(
            f"Content-Encoding {header.strip()!r} is not supported: send gzip, deflate or none",
            unsupported=True,
        )
    return encoding


def declared_too_large(content_length: str, limit: int) -> bool:
    return content_length.isascii() and content_length.isdigit() and int(content_length) > limit


async def read_decoded(
    chunks: AsyncIterator[bytes],
    encoding: str,
    limit: int = MAX_BODY_BYTES,
    grow: Callable[[int], None] | None = None,
) -> bytes:
    """The whole body, decoded; BodyTooLarge past `limit` bytes (on the wire or decoded).
    `grow(n)` is told of every n bytes more held (the wire's or the decoded, the larger), and
    may raise to stop the reading."""
    decoder = _decoder(encoding)
    out = bytearray()
    received = held = 0
    async for chunk in chunks:
        received += len(chunk)
        if received > limit:
            raise BodyTooLarge()
        if decoder is None:
            out += chunk
            if grow is not None:
                grow(len(chunk))
                held += len(chunk)
            continue
        pending = chunk
        while pending:
            try:
                # Never more output than still fits: the rest stays in unconsumed_tail.
                out += decoder.decompress(pending, limit + 1 - len(out))
            except zlib.error as exc:
                raise BadEncoding(f"the {encoding} body is corrupt ({exc})") from None
            if len(out) > limit or decoder.unconsumed_tail:
                raise BodyTooLarge()
            pending = b""
            if decoder.eof and decoder.unused_data:  # another gzip member follows
                pending = decoder.unused_data
                decoder = _decoder(encoding)
                assert decoder is not None
        if grow is not None and max(received, len(out)) > held:
            grow(max(received, len(out)) - held)
            held = max(received, len(out))
    if decoder is not None:
        if not decoder.eof and (received or out):
            raise BadEncoding(f"the {encoding} body ends early")
        out += decoder.flush()
        if len(out) > limit:
            raise BodyTooLarge()
    return bytes(out)
