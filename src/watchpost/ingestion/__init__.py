"""Log ingestion over HTTP: the hosted service's `POST /` and OTLP's `POST /v1/logs`, with
source tokens, rate limits and quotas (state.py). Bodies are read by `logs/` (ingest_body,
parsing, otlp), which knows nothing of HTTP, and stored through the logs store."""
