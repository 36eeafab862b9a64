"""Heartbeats (cron and job check-ins pinging a URL) and heartbeat groups."""
