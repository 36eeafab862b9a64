"""Uptime monitors (HTTP, keyword, ping, TCP/UDP, mail, DNS checks) and monitor groups."""
