"""`watchpost probe`: an agent that runs a location's checks and reports them to the server."""
