"""The teams' audit log: who signed in, created or changed what, acknowledged what, created
or revoked which token."""
