"""Storage: engine, sessions, the declarative base and the migrations."""
