"""Urgencies (severities): which ways an escalation step tells people; and their groups."""
