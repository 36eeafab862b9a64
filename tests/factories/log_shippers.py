"""Requests exactly as log shippers send them to an HTTP endpoint: headers and body bytes.

- Vector's `http` sink with `encoding.codec = "json"` (its default framing for the sink: a JSON
  array), `compression = "gzip"` and `auth.strategy = "bearer"`; and with `framing.method =
  "newline_delimited"` (NDJSON). Events of its `file` source: `timestamp` in RFC 3339 with
  nanoseconds, `message`, `host`, `file`, `source_type`.
- Fluent Bit's `http` output as the hosted service's guide configures it (`Format msgpack`,
  `Header Content-Type application/msgpack`): the chunk's entries back to back, each
  `[[EventTime, {metadata}], {record}]` (Fluent Bit 2.1 and later; EventTime is the msgpack
  extension type 0), also with `compress gzip`; and with `Format json` (a JSON array, the
  time in `date` as a double of Unix seconds) and `Format json_lines` (NDJSON,
  `application/x-ndjson`).

`{token}` in a header stands for the source token.
"""

from __future__ import annotations

import gzip
from typing import Final

VECTOR_HEADERS: Final = {
    "content-type": "application/json",
    "content-encoding": "gzip",
    "authorization": "Bearer {token}",
    "user-agent": "Vector/0.51.1 (x86_64-unknown-linux-gnu 0cda2f1 2025-11-04 15:06:13.462345687)",
    "accept-encoding": "zstd,gzip,deflate,br",
}
VECTOR_JSON_BODY: Final = gzip.compress(
    b'[{"file":"/var/log/app/app.log","host":"web-1","message":"GET /health 200",'
    b'"source_type":"file","timestamp":"2026-11-21T01:50:00.123456789Z"},'
    b'{"file":"/var/log/app/app.log","host":"web-1","message":"db timeout after 5s",'
    b'"source_type":"file","timestamp":"2026-11-21T01:50:01.000000001Z"}]'
)
VECTOR_NDJSON_HEADERS: Final = {**VECTOR_HEADERS, "content-type": "application/x-ndjson"}
VECTOR_NDJSON_BODY: Final = gzip.compress(
    b'{"host":"web-2","message":"worker started","source_type":"journald",'
    b'"timestamp":"2026-11-21T01:50:02.5Z"}\n'
    b'{"host":"web-2","message":"worker stopped","source_type":"journald",'
    b'"timestamp":"2026-11-21T01:50:03.5Z"}\n'
)

FLUENT_BIT_MSGPACK_HEADERS: Final = {
    "content-type": "application/msgpack",
    "user-agent": "Fluent-Bit",
    "authorization": "Bearer {token}",
}
FLUENT_BIT_MSGPACK_BODY: Final = bytes.fromhex(
    "9292d7006b00f8c8075bcd158083a36c6f67af474554202f6865616c746820323030a673747265616da6"
    "7374646f7574aa6b756265726e6574657381a8706f645f6e616d65a57765622d319292d7006b00f8c807"
    "5bcd158083a36c6f67aa64622074696d656f7574a673747265616da6737464657272aa6b756265726e65"
    "74657381a8706f645f6e616d65a57765622d32"
)
"""Two entries at 2026-11-21T01:50:00.123456789Z: GET /health 200 (web-1), db timeout (web-2)."""
FLUENT_BIT_MSGPACK_GZIP_HEADERS: Final = {**FLUENT_BIT_MSGPACK_HEADERS, "content-encoding": "gzip"}
FLUENT_BIT_MSGPACK_GZIP_BODY: Final = gzip.compress(FLUENT_BIT_MSGPACK_BODY)
"""The same with `compress gzip` in the output's configuration."""
FLUENT_BIT_JSON_HEADERS: Final = {**FLUENT_BIT_MSGPACK_HEADERS, "content-type": "application/json"}
FLUENT_BIT_JSON_BODY: Final = (
    b'[{"date":1795225800.123457,"log":"GET /health 200","stream":"stdout"},'
    b'{"date":1795225801.5,"log":"db timeout","stream":"stderr"}]'
)
FLUENT_BIT_NDJSON_HEADERS: Final = {
    **FLUENT_BIT_MSGPACK_HEADERS,
    "content-type": "application/x-ndjson",
}
FLUENT_BIT_NDJSON_BODY: Final = (
    b'{"date":1795225800.123457,"log":"GET /health 200","stream":"stdout"}\n'
    b'{"date":1795225801.5,"log":"db timeout","stream":"stderr"}\n'
)


def with_token(headers: dict[str, str], token: str) -> dict[str, str]:
    return {name: value.replace("{token}", token) for name, value in headers.items()}
