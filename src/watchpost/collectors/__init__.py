"""Collectors and the targets (databases, caches, web servers, brokers, scrapes) they watch."""
