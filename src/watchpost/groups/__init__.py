"""Groups of monitors, heartbeats and sources: one table of kinds, one service, one router."""
