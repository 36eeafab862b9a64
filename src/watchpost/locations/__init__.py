"""Where checks run from: named locations, the probe agents' tokens, each location's checks."""
