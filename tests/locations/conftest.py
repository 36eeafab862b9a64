from tests.factories.netns import make_hosts  # noqa: F401
