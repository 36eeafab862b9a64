"""Teams, their API tokens and their users."""
