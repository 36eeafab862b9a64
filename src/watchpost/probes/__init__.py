"""Probes: one module per kind of check, one small interface, no database access."""
