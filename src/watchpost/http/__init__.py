"""The HTTP conventions every endpoint shares: auth, envelope, errors, bodies, pagination."""
