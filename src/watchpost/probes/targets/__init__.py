"""Probes of collector targets: databases, caches, brokers, web servers, exporters."""
