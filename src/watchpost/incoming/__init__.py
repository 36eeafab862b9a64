"""Incoming webhooks: a public URL whose requests start, acknowledge and resolve incidents."""
