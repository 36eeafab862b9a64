"""Finding logs over HTTP: the query API and the live tail (API token), and the read-only
ClickHouse SQL endpoint. Apart from `logs/` (events, store, query language), which the app
context holds, so that nothing in `logs/` imports the HTTP layer."""
