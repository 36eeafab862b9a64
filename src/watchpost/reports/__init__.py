"""Availability of monitors and heartbeats over a period, and a monitor's recent response
times (the hosted API's /sla, /availability and /response-times routes)."""
