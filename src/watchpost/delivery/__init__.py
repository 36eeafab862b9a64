"""Alert delivery: the outbox of events and their deliveries to webhooks."""
