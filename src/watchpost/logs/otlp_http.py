"""OTLP/HTTP without protobuf: the media types, and the google.rpc.Status an error answers
with. What an endpoint needs before a body is read, so OpenTelemetry's protobuf modules
(logs/otlp.py) load at the first export, not at start."""

from __future__ import annotations

from typing import Final

import orjson

PROTOBUF: Final = "application/x-protobuf"
JSON: Final = "application/json"


def media(content_type: str) -> str | None:
    """PROTOBUF or JSON for a Content-Type header; None for any other."""
    value = content_type.split(";", 1)[0].strip().lower()
    if value in (PROTOBUF, "application/protobuf"):
        return PROTOBUF
    if value == JSON:
        return JSON
    return None


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        byte = number & 0x7F
        number >>= 7
        if number:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


# google.rpc.Code values for the statuses OTLP/HTTP answers with.
_RPC_CODES: Final = {400: 3, 401: 16, 403: 7, 413: 3, 415: 3, 429: 8, 503: 14}


def status(kind: str, http_status: int, message: str) -> tuple[bytes, str]:
    """A google.rpc.Status (code, message) in the request's encoding, for a 4xx/5xx."""
    code = _RPC_CODES.get(http_status, 2)
    if kind == PROTOBUF:
        text = message.encode()
        return b"\x08" + _varint(code) + b"\x12" + _varint(len(text)) + text, PROTOBUF
    return orjson.dumps({"code": code, "message": message}), JSON
