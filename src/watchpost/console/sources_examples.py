"""Ready-to-paste examples of sending logs to a source: curl, logtail-python, Vector and the
OpenTelemetry Collector, naming this server's real ingest address with its scheme (the
API's `ingesting_url`) and, on the page after creation only, the source's token. They
follow docs/api.md's examples (section "Sources")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

TOKEN_PLACEHOLDER: Final = "$SOURCE_TOKEN"  # noqa: S105  (a shell variable's name)


@dataclass(frozen=True)
class Example:
    key: str
    title: str
    text: str


def examples(url: str, token: str | None) -> list[Example]:
    """The examples for an ingest URL; the token, or $SOURCE_TOKEN when it is not shown."""
    secret = token or TOKEN_PLACEHOLDER
    base = url.rstrip("/")
    env = "" if token else "# SOURCE_TOKEN: the token shown once when the source was created\n"
    return [
        Example(
            "curl",
            "curl",
            f"{env}curl -X POST '{base}/' \\\n"
            f'  -H "Authorization: Bearer {secret}" \\\n'
            "  -H 'Content-Type: application/json' \\\n"
            """  -d '{"message": "hello from curl", "level": "info"}'""",
        ),
        Example(
            "python",
            "Python (logtail-python)",
            f"{env}# pip install logtail-python\n"
            "import logging\n"
            "from logtail import LogtailHandler\n\n"
            "handler = LogtailHandler(\n"
            f"    source_token={(repr(token) if token else 'SOURCE_TOKEN')},\n"
            f"    host={base!r},\n"
            ")\n"
            "logging.getLogger().addHandler(handler)\n"
            'logging.getLogger().warning("hello from Python")',
        ),
        Example(
            "vector",
            "Vector (vector.toml)",
            f"{env}[sinks.watchpost]\n"
            'type = "http"\n'
            'inputs = ["my_source"]\n'
            f'uri = "{base}/"\n'
            'encoding.codec = "json"\n'
            'compression = "gzip"\n'
            'auth.strategy = "bearer"\n'
            f'auth.token = "{secret if token else "${SOURCE_TOKEN}"}"',
        ),
        Example(
            "otel",
            "OpenTelemetry Collector (otlphttp exporter)",
            f"{env}exporters:\n"
            "  otlphttp/watchpost:\n"
            f"    endpoint: {base}  # sends to /v1/logs and /v1/metrics\n"
            "    headers:\n"
            f'      Authorization: "Bearer {secret if token else "${env:SOURCE_TOKEN}"}"\n'
            "service:\n"
            "  pipelines:\n"
            "    logs:\n"
            "      receivers: [otlp]\n"
            "      exporters: [otlphttp/watchpost]\n"
            "    metrics:\n"
            "      receivers: [otlp]\n"
            "      exporters: [otlphttp/watchpost]",
        ),
    ]
