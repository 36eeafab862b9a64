"""The team's people as the hosted API's team members (read-only: `watchpost user create`)."""
