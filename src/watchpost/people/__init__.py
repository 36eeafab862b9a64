"""People who sign in: roles per team, passwords, console sessions, one-time links and the
second factor. No HTTP here: the console turns these values into pages."""
