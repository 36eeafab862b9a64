"""Telemetry sources: where logs and metrics are sent, and how long they are kept."""
