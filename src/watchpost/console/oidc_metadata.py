"""What the OpenID provider's documents say, checked: its discovery document and why it
refused a token. Plain values and ValueErrors; console/oidc.py turns them into OidcError."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

import httpx
from joserfc.errors import (
    BadSignatureError,
    ExpiredTokenError,
    InvalidClaimError,
    InvalidKeyIdError,
    JoseError,
    MissingClaimError,
)

SIGNING_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384")
"""Public-key signatures only: never `none`, never HS* (a key shared with the client)."""
AUTH_METHODS = ("client_secret_basic", "client_secret_post")


@dataclass(frozen=True)
class ProviderMetadata:
    """The parts of the provider's discovery document the code flow uses."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    token_auth_method: str
    signing_algorithms: tuple[str, ...]


def parse_metadata(document: Mapping[str, Any], issuer: str) -> ProviderMetadata:
    """The discovery document checked: it is the configured issuer's, and names https
    endpoints when the issuer is https (OpenID Connect Discovery §3, §4.3)."""
    named = document.get("issuer")
    if not isinstance(named, str) or named.rstrip("/") != issuer:
        raise ValueError(f"discovery names issuer {named!r}, not the configured {issuer!r}")
    endpoints: dict[str, str] = {}
    for field in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
        url = document.get(field)
        scheme = urlsplit(url).scheme if isinstance(url, str) else ""
        if scheme not in ("https", "http") or (scheme == "http" and issuer.startswith("https:")):
            raise ValueError(f"discovery: {field} is missing or not https")
        endpoints[field] = cast(str, url)
    methods = document.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    method = next((m for m in AUTH_METHODS if m in methods), None)
    offered = document.get("id_token_signing_alg_values_supported") or ["RS256"]
    algorithms = tuple(a for a in SIGNING_ALGORITHMS if a in offered)
    if method is None or not algorithms:
        raise ValueError("discovery: no client authentication or ID token signature we accept")
    return ProviderMetadata(
        issuer=named,
        authorization_endpoint=endpoints["authorization_endpoint"],
        token_endpoint=endpoints["token_endpoint"],
        jwks_uri=endpoints["jwks_uri"],
        token_auth_method=method,
        signing_algorithms=algorithms,
    )


def error_code(response: httpx.Response) -> str:
    """The OAuth error code and description of a refusal, or its first words."""
    try:
        document = response.json()
    except ValueError:
        return response.text[:200]
    if not isinstance(document, dict):
        return "not an OAuth error"
    return f"{document.get('error')}: {document.get('error_description')}"[:300]


def refusal_reason(error: JoseError) -> str:
    """A few words on why an ID token was refused, for the person and the log."""
    if isinstance(error, BadSignatureError):
        return "bad signature"
    if isinstance(error, ExpiredTokenError):
        return "expired"
    if isinstance(error, InvalidKeyIdError):
        return "unknown signing key"
    if isinstance(error, (InvalidClaimError, MissingClaimError)):
        return f"{'missing' if isinstance(error, MissingClaimError) else 'wrong'} {error.claim}"
    return error.error or type(error).__name__
