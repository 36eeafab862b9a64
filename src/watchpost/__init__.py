"""Watchpost: a self-hosted monitoring platform."""

__version__ = "0.1.0"
