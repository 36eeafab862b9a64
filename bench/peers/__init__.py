"""Watchpost beside its peers (Healthchecks, Uptime Kuma) on one machine: see run.py."""
