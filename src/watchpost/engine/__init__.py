"""The check engine: the database is the schedule; workers claim due rows with a lease."""
