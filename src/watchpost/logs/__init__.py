"""Logs: events as ingested (events.py), the store interface and its engines (store.py)."""
