"""Notification channels: chat and push services reached through Apprise."""
