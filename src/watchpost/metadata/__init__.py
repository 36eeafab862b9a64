"""Metadata: keys with typed values attached to monitors, heartbeats and incidents (the
hosted API's /api/v3/metadata)."""
