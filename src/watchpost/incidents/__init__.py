"""Incidents: opened by failing checks (or by people), acknowledged, resolved; with a timeline."""
