"""The operator console: server-rendered pages that call the domains' services."""
