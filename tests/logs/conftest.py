"""The logs stores (tests/factories/logs.py) for the tests of this folder."""

from tests.factories.logs import *  # noqa: F403
