"""Checks from many places, above the domains they join: the administration of locations and
their probe tokens (service, API) and the probe agents' protocol (protocol_endpoints)."""
