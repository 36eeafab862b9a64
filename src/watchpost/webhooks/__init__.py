"""Outgoing webhooks: where Watchpost tells other systems about incidents, on-call and monitors."""
