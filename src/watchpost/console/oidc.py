"""Single sign-on with OpenID Connect: the authorization code flow with PKCE, state and nonce.

The login routes call `OidcClient.begin()` (a URL to send the person to, and the values to keep
until they come back) and `OidcClient.finish()` (the code they bring back, exchanged for an ID
token that is verified here). `team_role_for()` reads WATCHPOST_OIDC_TEAMS for a verified
e-mail address.

Outgoing requests go only to the configured issuer: its discovery document, and the token and
JWKS endpoints that document names (never redirects). The issuer is an operator's setting,
not a user's URL, so the destination policy for users' URLs (destinations.py, outbound.py)
does not apply; an https issuer must name https endpoints.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import Any, cast
from urllib.parse import quote, urlencode, urlsplit

import httpx
from joserfc import jwt
from joserfc.errors import InvalidKeyIdError, JoseError
from joserfc.jwk import KeySet, KeySetSerialization
from pydantic import SecretStr

from watchpost.clock import Clock
from watchpost.console.oidc_metadata import (
    AUTH_METHODS,
    ProviderMetadata,
    error_code,
    parse_metadata,
    refusal_reason,
)
from watchpost.settings import Settings

log = logging.getLogger(__name__)

SCOPE = "openid email profile"
PENDING_MAX_AGE = timedelta(minutes=10)
"""How long a person may take at the provider between begin() and finish()."""
CLOCK_LEEWAY = 60
"""Seconds of clock difference with the provider accepted on an ID token's exp and iat."""
_RETRY = "Please sign in again."


class OidcError(Exception):
    """A sign-in that cannot go on. The message is safe to show the person: no secret, no
    token, nothing the provider sent back verbatim."""


@dataclass(frozen=True)
class OidcPending:
    """What begin() hands the caller to keep (server-side or signed) until the callback."""

    state: str
    nonce: str
    code_verifier: str
    created_at: int
    """Unix seconds, from the clock: finish() refuses a pending sign-in older than
    PENDING_MAX_AGE."""

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> OidcPending:
        try:
            data = json.loads(text)
            pending = cls(**data)
        except (ValueError, TypeError):
            raise OidcError(f"This sign-in was not started here. {_RETRY}") from None
        strings = (pending.state, pending.nonce, pending.code_verifier)
        if not all(isinstance(value, str) and value for value in strings) or not isinstance(
            pending.created_at, int
        ):
            raise OidcError(f"This sign-in was not started here. {_RETRY}")
        return pending


@dataclass(frozen=True)
class OidcIdentity:
    """The person the provider vouches for. Match people by `email` only when
    `email_verified` (team_role_for() insists): an unverified address is anyone's claim."""

    subject: str
    email: str
    email_verified: bool
    name: str | None


class OidcClient:
    """One configured provider. Keep one per process: discovery and keys are cached."""

    def __init__(
        self,
        *,
        issuer: str,
        client_id: str,
        client_secret: SecretStr,
        clock: Clock,
        timeout: float = 10.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.issuer = issuer.rstrip("/")
        self.client_id = client_id
        self._secret = client_secret
        self._clock = clock
        self._timeout = timeout
        self._transport = transport
        self._metadata: ProviderMetadata | None = None
        self._keys: KeySet | None = None

    @classmethod
    def from_settings(
        cls, settings: Settings, clock: Clock, *, transport: httpx.AsyncBaseTransport | None = None
    ) -> OidcClient | None:
        """The client WATCHPOST_OIDC_* describe; None when single sign-on is not configured."""
        if not (settings.oidc_issuer and settings.oidc_client_id and settings.oidc_client_secret):
            return None
        return cls(
            issuer=settings.oidc_issuer,
            client_id=settings.oidc_client_id,
            client_secret=settings.oidc_client_secret,
            clock=clock,
            transport=transport,
        )

    def __repr__(self) -> str:
        return f"OidcClient(issuer={self.issuer!r}, client_id={self.client_id!r})"

    async def discover(self) -> ProviderMetadata:
        """The provider's metadata, read once (a failure is not cached: the next call retries)."""
        if self._metadata is None:
            document = await self._get_json(f"{self.issuer}/.well-known/openid-configuration")
            try:
                self._metadata = parse_metadata(document, self.issuer)
            except ValueError as error:
                log.warning("OIDC provider refused: %s", error)
                raise OidcError(f"The sign-in provider is misconfigured. {_RETRY}") from None
        return self._metadata

    def begin(self, redirect_uri: str) -> tuple[str, OidcPending]:
        """The provider's authorization URL to redirect to, and what to keep until the
        callback. Call `await discover()` first."""
        if self._metadata is None:
            raise RuntimeError("OidcClient.begin() before discover()")
        pending = OidcPending(
            state=secrets.token_urlsafe(32),
            nonce=secrets.token_urlsafe(32),
            code_verifier=secrets.token_urlsafe(64),  # 86 characters, within RFC 7636's 43-128
            created_at=int(self._clock.now().timestamp()),
        )
        query = urlencode(
            {
                "response_type": "code",
                "client_id": self.client_id,
                "redirect_uri": redirect_uri,
                "scope": SCOPE,
                "state": pending.state,
                "nonce": pending.nonce,
                "code_challenge": code_challenge(pending.code_verifier),
                "code_challenge_method": "S256",
            }
        )
        endpoint = self._metadata.authorization_endpoint
        return f"{endpoint}{'&' if urlsplit(endpoint).query else '?'}{query}", pending

    async def finish(
        self, *, code: str, state: str, pending: OidcPending, redirect_uri: str
    ) -> OidcIdentity:
        """Check the callback against the pending sign-in, exchange the code for tokens and
        verify the ID token (signature from the provider's keys, iss, aud, exp, iat, nonce)."""
        if not secrets.compare_digest(state.encode(), pending.state.encode()):
            raise OidcError(f"This sign-in does not match the one started here. {_RETRY}")
        age = int(self._clock.now().timestamp()) - pending.created_at
        if age > PENDING_MAX_AGE.total_seconds():
            raise OidcError(f"This sign-in took too long. {_RETRY}")
        if not code:
            raise OidcError(f"The provider sent no sign-in code. {_RETRY}")
        metadata = await self.discover()
        tokens = await self._exchange(metadata, code, pending.code_verifier, redirect_uri)
        id_token = tokens.get("id_token")
        if not isinstance(id_token, str):
            log.warning("OIDC token response without an ID token")
            raise OidcError(f"The provider sent no identity token. {_RETRY}")
        claims = await self._verify(metadata, id_token, pending.nonce)
        email = claims.get("email")
        if not isinstance(email, str) or "@" not in email:
            raise OidcError(
                "The provider did not share your e-mail address, which Watchpost needs."
            )
        name = claims.get("name")
        return OidcIdentity(
            subject=str(claims["sub"]),
            email=email,
            email_verified=claims.get("email_verified") in (True, "true"),
            name=name if isinstance(name, str) and name.strip() else None,
        )

    async def _exchange(
        self, metadata: ProviderMetadata, code: str, verifier: str, redirect_uri: str
    ) -> dict[str, Any]:
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": verifier,
        }
        secret = self._secret.get_secret_value()
        auth: httpx.Auth | None = None
        if metadata.token_auth_method == AUTH_METHODS[1]:  # client_secret_post
            form |= {"client_id": self.client_id, "client_secret": secret}
        else:  # RFC 6749 §2.3.1: both form-encoded before they are joined
            auth = httpx.BasicAuth(quote(self.client_id, safe=""), quote(secret, safe=""))
        try:
            async with self._http() as http:
                response = await http.post(
                    metadata.token_endpoint, data=form, auth=auth or httpx.USE_CLIENT_DEFAULT
                )
        except httpx.HTTPError as error:
            log.warning("OIDC token endpoint unreachable: %s", type(error).__name__)
            raise OidcError(f"The sign-in provider could not be reached. {_RETRY}") from None
        if response.status_code != 200:
            log.warning(
                "OIDC token endpoint answered %s: %s",
                response.status_code,
                self._redacted(error_code(response)),
            )
            raise OidcError(
                f"The provider refused the sign-in code (it may have been used already). {_RETRY}"
            )
        return _json_object(response)

    async def _verify(
        self, metadata: ProviderMetadata, id_token: str, nonce: str
    ) -> dict[str, Any]:
        try:
            token = await self._decode(metadata, id_token)
            claims = token.claims
            jwt.JWTClaimsRegistry(
                now=lambda: int(self._clock.now().timestamp()),
                leeway=CLOCK_LEEWAY,
                iss={"essential": True, "value": metadata.issuer},
                aud={"essential": True, "value": self.client_id},
                sub={"essential": True},
                exp={"essential": True},
                iat={"essential": True},
                nonce={"essential": True, "value": nonce},
            ).validate(claims)
        except (JoseError, ValueError) as error:
            reason = refusal_reason(error) if isinstance(error, JoseError) else "unreadable"
            log.warning("OIDC ID token refused: %s", reason)
            raise OidcError(
                f"The provider's identity token was refused ({reason}). {_RETRY}"
            ) from None
        audience = claims["aud"]
        if isinstance(audience, list) and len(audience) > 1 and claims.get("azp") != self.client_id:
            log.warning("OIDC ID token refused: several audiences, azp not this client")
            raise OidcError(f"The provider's identity token was refused (audience). {_RETRY}")
        return claims

    async def _decode(self, metadata: ProviderMetadata, id_token: str) -> jwt.Token:
        algorithms = list(metadata.signing_algorithms)
        keys = self._keys or await self._fetch_keys(metadata)
        try:
            return jwt.decode(id_token, keys, algorithms=algorithms)
        except InvalidKeyIdError:
            # a key the cached set does not hold: the provider may have rotated its keys
            return jwt.decode(id_token, await self._fetch_keys(metadata), algorithms=algorithms)

    async def _fetch_keys(self, metadata: ProviderMetadata) -> KeySet:
        document = await self._get_json(metadata.jwks_uri)
        try:
            self._keys = KeySet.import_key_set(cast(KeySetSerialization, document))
        except (JoseError, KeyError, TypeError, ValueError):
            log.warning("OIDC JWKS at %s is not a key set", metadata.jwks_uri)
            raise OidcError(f"The sign-in provider's keys could not be read. {_RETRY}") from None
        return self._keys

    async def _get_json(self, url: str) -> dict[str, Any]:
        try:
            async with self._http() as http:
                response = await http.get(url)
        except httpx.HTTPError as error:
            log.warning("OIDC provider unreachable at %s: %s", url, type(error).__name__)
            raise OidcError(f"The sign-in provider could not be reached. {_RETRY}") from None
        if response.status_code != 200:
            log.warning("OIDC provider answered %s at %s", response.status_code, url)
            raise OidcError(f"The sign-in provider could not be reached. {_RETRY}")
        return _json_object(response)

    def _http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=self._timeout, transport=self._transport, follow_redirects=False
        )

    def _redacted(self, text: str) -> str:
        """A provider's words, without our secret should it ever echo it."""
        return text.replace(self._secret.get_secret_value(), "**********")


def callback_refusal(error: str) -> OidcError:
    """What to tell the person when the provider's callback brings ?error=… instead of a
    code (RFC 6749 §4.1.2.1); the provider's own words only go to the log."""
    if error == "access_denied":
        return OidcError("The sign-in was cancelled at the provider.")
    log.warning("OIDC provider refused the authorization: %s", error[:100])
    return OidcError(f"The sign-in provider refused the sign-in. {_RETRY}")


def team_role_for(
    email: str, mapping: Mapping[str, Sequence[tuple[str, str]]], *, email_verified: bool
) -> list[tuple[str, str]]:
    """The (team name, role) pairs WATCHPOST_OIDC_TEAMS (Settings.oidc_team_map) gives the
    e-mail's domain: exact match, any case; none for a domain it does not name. An address
    the provider has not verified gets nothing: anyone can claim any address."""
    if not email_verified:
        raise OidcError(
            "Your e-mail address is not verified at the sign-in provider, so it cannot "
            "give you access to a team. Verify it there, then sign in again."
        )
    local, at, domain = email.strip().rpartition("@")
    if not (local and at):
        return []
    return list(mapping.get(domain.lower(), ()))


def code_challenge(verifier: str) -> str:
    """PKCE's S256 challenge (RFC 7636 §4.2)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _json_object(response: httpx.Response) -> dict[str, Any]:
    try:
        document = response.json()
    except ValueError:
        document = None
    if not isinstance(document, dict):
        log.warning("OIDC provider's answer at %s is not a JSON object", response.request.url)
        raise OidcError(f"The sign-in provider's answer could not be read. {_RETRY}")
    return document
