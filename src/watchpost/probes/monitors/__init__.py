"""Probes of monitors: HTTP, TCP, UDP, DNS, mail, ping and certificate expiry."""
