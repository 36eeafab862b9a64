"""Status pages, their sections and the resources shown on them."""
