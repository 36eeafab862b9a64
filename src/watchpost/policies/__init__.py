"""Escalation policies: who is told of an incident, in which order, until someone acts."""
