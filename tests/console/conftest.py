from tests.console.oidc_provider import oidc_provider

__all__ = ["oidc_provider"]
