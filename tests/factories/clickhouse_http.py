"""ClickHouse's HTTP interface in front of ClickHouse's own engine (chDB), for the tests.

No current ClickHouse server installs here from the package registries (Debian's
clickhouse-server is 18.16, without Map; chDB's engine refuses `SYSTEM START LISTEN`). So the
ClickHouse store is tested over real HTTP, with clickhouse-connect, against a current
ClickHouse engine (chDB 26.x, MergeTree tables on disk) behind this small front, which speaks
the part of the HTTP interface clickhouse-connect uses: the query in the `query` parameter or
the body, an INSERT's data in the body (Native, optionally lz4/zstd/gzip), results in the
format the query names, errors as ClickHouse writes them (status 500, `Code: N. DB::Exception`).

Run:  python -m tests.factories.clickhouse_http DATA_DIR   (prints "port N" once listening on
127.0.0.1 at an ephemeral port; serves until killed).
"""

from __future__ import annotations

import gzip
import re
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

INSERT = re.compile(
    r"^\s*INSERT\s+INTO\s+(?P<table>[\w.`\"]+)\s*(?P<columns>\([^)]*\))?\s*FORMAT\s+(?P<format>\w+)\s*$",
    re.IGNORECASE | re.DOTALL,
)
# An INSERT whose data follows its text in the body (clickhouse-connect's data inserts).
INSERT_HEAD = re.compile(
    rb"^\s*(INSERT\s+INTO\s+[\w.`\"]+\s*(?:\([^)]*\))?\s*FORMAT\s+\w+)[ \t]*\r?\n?",
    re.IGNORECASE,
)
CODE = re.compile(r"Code: (\d+)")


def decompress(data: bytes, encoding: str) -> bytes:
    if encoding in ("", "identity"):
        return data
    if encoding == "gzip":
        return gzip.decompress(data)
    if encoding == "lz4":
        import lz4.frame  # type: ignore[import-untyped]

        return bytes(lz4.frame.decompress(data))
    if encoding == "zstd":
        from backports import zstd

        return bytes(zstd.decompress(data))
    raise ValueError(f"unsupported Content-Encoding {encoding}")


class Front:
    def __init__(self, folder: Path) -> None:
        import chdb

        self.folder = folder
        self.conn: Any = chdb.connect(str(folder / "chdb"))  # type: ignore[no-untyped-call]
        self.lock = threading.Lock()

    def run(self, sql: str, fmt: str, database: str | None) -> bytes:
        with self.lock:
            if database:
                self.conn.query(f"USE {database}")
            result = self.conn.query(sql, fmt)
            return bytes(result.bytes()) if result is not None else b""

    def insert(self, match: re.Match[str], data: bytes, database: str | None) -> None:
        with tempfile.NamedTemporaryFile(dir=self.folder, suffix=".bin") as staged:
            staged.write(data)
            staged.flush()
            columns = match["columns"] or ""
            # The table and columns as the client wrote them; the data read from the file.
            into = f"INSERT INTO {match['table']} {columns}"
            sql = f"{into} SELECT * FROM file('{staged.name}', '{match['format']}')"  # noqa: S608
            self.run(sql, "TabSeparated", database)


def handler(front: Front) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            if urlsplit(self.path).path == "/ping":
                self.answer(200, b"Ok.\n")
                return
            self.handle_query(b"")

        def do_POST(self) -> None:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                body = self.read_chunked()
            else:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
            self.handle_query(body)

        def read_chunked(self) -> bytes:
            parts: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()

        def handle_query(self, body: bytes) -> None:
            params = {k: v[-1] for k, v in parse_qs(urlsplit(self.path).query).items()}
            database = params.get("database")
            try:
                body = decompress(body, self.headers.get("Content-Encoding", "").lower())
                query = params.get("query")
                if query is None and (head := INSERT_HEAD.match(body)):
                    query, body = head[1].decode(), body[head.end() :]
                if query is not None and body and (match := INSERT.match(query)):
                    front.insert(match, body, database)
                    out = b""
                else:
                    sql = query if query is not None else body.decode()
                    if query is not None and body:
                        sql = f"{query}\n{body.decode()}"
                    out = front.run(sql, params.get("default_format", "TabSeparated"), database)
            except Exception as exc:  # the engine's error, as a ClickHouse server answers it
                text = str(exc)
                code = CODE.search(text)
                self.answer(
                    500,
                    (
                        text if text.startswith("Code:") else f"Code: 1000. DB::Exception: {text}"
                    ).encode(),
                    {"X-ClickHouse-Exception-Code": code[1] if code else "1000"},
                )
                return
            self.answer(200, out)

        def answer(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-ClickHouse-Timezone", "UTC")
            self.send_header("X-ClickHouse-Summary", '{"read_rows":"0","written_rows":"0"}')
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

    return Handler


def main() -> None:
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    front = Front(folder)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(front))
    print(f"port {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
