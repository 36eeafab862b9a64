"""What the tests build their cases from, one module per area of the source tree.

Naming: `create_<thing>` makes a thing that is stored (through the API, or the database
where the API cannot) and returns it; `build_<thing>` returns one that is not stored;
`<thing>_body` is a request body; constants in capitals name routes and sample values.
Fixtures (the app, the client, the backends) live in tests/conftest.py.
"""
