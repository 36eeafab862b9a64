"""Check results kept compactly: a bounded raw window plus hourly and daily rollups."""
