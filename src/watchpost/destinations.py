"""Where Watchpost may send requests, and where a stored secret may go. Two rule tables.

- **Denied networks.** Monitors, collector targets, webhooks and notification channels may
  point at private and loopback addresses (watching internal services is why people
  self-host them), never at link-local or cloud metadata addresses: whoever can create a
  monitor could otherwise read the host's cloud credentials through it. An address is
  refused when an object is created or changed (every spelling of it: decimal, hex, octal
  and short IPv4 forms, and IPv6 addresses carrying an IPv4 address, which count as that
  address: `embedded_ipv4`), and again on the resolved address when a check or a delivery
  connects (`watchpost.outbound`), since a name's DNS answer can change after validation.
  `WATCHPOST_DENIED_NETWORKS` replaces the default list; one policy holds per process
  (`configure()`, from the settings).
- **Secrets follow their destination.** A write-only secret was given for one destination.
  Changing the destination without sending the secret again would send the stored secret to
  an address of the caller's choosing, where it can be read: SECRET_RULES says, per object
  kind, which fields are secrets and which fields make their destination.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

import idna

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_DENIED_NETWORKS: Final[tuple[str, ...]] = (
    "169.254.0.0/16",  # IPv4 link-local; the metadata service of AWS, GCP, Azure … (.169.254)
    "fe80::/10",  # IPv6 link-local
    "fd00:ec2::254/128",  # the AWS metadata service over IPv6
    "100.100.100.200/32",  # the Alibaba Cloud metadata service
    "192.0.0.192/32",  # the Oracle Cloud metadata service
)
DENIED_HOST_NAMES: Final[frozenset[str]] = frozenset({"metadata.google.internal"})
"""Names of metadata services, refused whatever they resolve to (and whatever the list says)."""

# What the C library's inet_aton reads as an IPv4 address besides the dotted quad: one to four
# parts, each decimal, octal (leading 0) or hex (0x). getaddrinfo() reads a host name this way
# too, so "2852039166", "0xa9fea9fe" and "169.254.43518" all connect to 169.254.169.254.
_LEGACY_IPV4 = re.compile(r"^[0-9][0-9a-fA-FxX]*(\.[0-9][0-9a-fA-FxX]*){0,3}$")


class DeniedDestination(ValueError):
    """A destination in a denied network; the message completes "<field> …" for people."""


def parse_networks(text: str | Iterable[str]) -> tuple[IpNetwork, ...]:
    """CIDRs (comma-separated text or a list) as networks; ValueError names a bad one."""
    items = text.split(",") if isinstance(text, str) else list(text)
    networks: list[IpNetwork] = []
    for item in (part.strip() for part in items):
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is not a network in CIDR notation") from None
    return tuple(networks)


def literal_address(host: str) -> IpAddress | None:
    """The address a host spells out, in any spelling the resolver accepts; None for a name."""
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    text = text.removesuffix(".")
    if not _LEGACY_IPV4.match(text):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(text))
    except OSError:
        return None


_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def embedded_ipv4(address: IpAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries, which a connection to it may reach:
    IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d (the
    well-known prefix, RFC 6052) and 6to4 2002:aabb:ccdd::/48 (bits 16 to 48). None otherwise."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    # :: and ::1 are IPv6's own unspecified and loopback addresses, not IPv4-compatible ones.
    if (address in _IPV4_COMPATIBLE and int(address) > 1) or address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def ascii_name(host: str) -> str:
    """host as DNS and TLS see it: an internationalized name in its xn-- form (IDNA 2008 with
    the UTS #46 mapping, as aiohttp's URLs encode it), an ASCII host as it is. The mapping
    folds width and case (metadata.google.internal in full-width letters is that name):
    every rule judges this form. ValueError when host is no valid internationalized name."""
    if host.isascii():
        return host
    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError as exc:
        raise ValueError(f"not a valid internationalized host name ({exc})") from None


def is_denied_name(host: str) -> bool:
    name = host.strip().strip("[]")
    with contextlib.suppress(ValueError):  # else no name a resolver would look up
        name = ascii_name(name)
    return name.removesuffix(".").lower() in DENIED_HOST_NAMES


@dataclass(frozen=True)
class DestinationPolicy:
    networks: tuple[IpNetwork, ...]

    def denied_network(self, address: IpAddress) -> IpNetwork | None:
        """The denied network holding address, or the IPv4 address it carries (embedded_ipv4).

        Every check, at validation and at connect time, asks this."""
        candidates: list[IpAddress] = [address]
        carried = embedded_ipv4(address)
        if carried is not None:
            candidates.append(carried)
        for network in self.networks:
            for candidate in candidates:
                if candidate.version == network.version and candidate in network:
                    return network
        return None

    def check_host(self, host: str) -> None:
        """Raises DeniedDestination when host is a metadata name or spells a denied address."""
        try:
            host = ascii_name(host.strip())
        except ValueError:
            return  # no name a resolver would look up (the field's own check refuses it)
        if is_denied_name(host):
            raise DeniedDestination("must not be a cloud metadata host")
        address = literal_address(host)
        network = self.denied_network(address) if address is not None else None
        if network is not None:
            raise DeniedDestination(f"must not be an address in a denied network ({network})")

    def check_url(self, url: str) -> None:
        host = urlsplit(url.strip()).hostname
        if host:
            try:
                self.check_host(host)
            except DeniedDestination as exc:
                raise DeniedDestination(
                    str(exc).replace("must not be", "must not point to")
                ) from None


_policy = DestinationPolicy(parse_networks(DEFAULT_DENIED_NETWORKS))


def configure(denied_networks: str | None) -> None:
    """Sets the process's policy: None keeps the default list, text replaces it ("" = none)."""
    global _policy
    text = DEFAULT_DENIED_NETWORKS if denied_networks is None else denied_networks
    _policy = DestinationPolicy(parse_networks(text))


def current() -> DestinationPolicy:
    return _policy


# ------------------------------------------------------------------ secrets and destinations


@dataclass(frozen=True)
class SecretRule:
    """Fields of one object kind: its write-only secrets, and what makes their destination."""

    secrets: tuple[str, ...]
    destination: tuple[str, ...]
    url_fields: frozenset[str] = frozenset()
    """Destination fields holding a URL: only their origin (scheme, host, port) counts."""


SECRET_RULES: Final[Mapping[str, SecretRule]] = {
    "collector_target": SecretRule(
        secrets=("password", "api_key"),
        destination=("host", "port", "listen_ip", "service", "endpoint", "scheme"),
        url_fields=frozenset({"endpoint"}),
    ),
    "monitor": SecretRule(
        secrets=("auth_password",), destination=("url", "port"), url_fields=frozenset({"url"})
    ),
    "outgoing_webhook": SecretRule(
        secrets=("custom_webhook_template_attributes.auth_password",),
        destination=("url",),
        url_fields=frozenset({"url"}),
    ),
}

RESEND_MESSAGE: Final = "{secret} must be sent again when the destination changes ({changed})"


def _origin(url: object) -> object:
    if not isinstance(url, str) or "://" not in url:
        return url.strip().lower() if isinstance(url, str) else url
    parts = urlsplit(url.strip())
    try:
        port = parts.port
    except ValueError:
        return url
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return (parts.scheme.lower(), (parts.hostname or "").lower(), port or default)


def _same(name: str, rule: SecretRule, old: object, new: object) -> bool:
    if name in rule.url_fields:
        return _origin(old) == _origin(new)
    if isinstance(old, str) and isinstance(new, str):
        return old.strip().lower() == new.strip().lower()
    return old == new


def resend_problems(
    kind: str,
    *,
    current: Mapping[str, object],
    changes: Mapping[str, object],
    stored: Iterable[str],
    resent: Iterable[str],
    defaults: Mapping[str, object] | None = None,
) -> list[tuple[str | None, str]]:
    """(field, message) for each stored secret a change of destination would redirect.

    current: the object's destination values; changes: the values the request sends (only
    the fields it sends); stored: the secrets that hold a value; resent: the secrets the
    request sends (a null removes the secret, which is also fine); defaults: what a null
    becomes (an elasticsearch scheme). A null without a default is no new destination: a
    required field is refused as null by its own rule. A secret's field is named by its
    top-level attribute, as every 422 does.
    """
    rule = SECRET_RULES[kind]
    new = {
        name: value if value is not None else (defaults or {}).get(name)
        for name, value in changes.items()
    }
    changed = [
        name
        for name in rule.destination
        if new.get(name) is not None and not _same(name, rule, current.get(name), new[name])
    ]
    if not changed:
        return []
    waiting = [name for name in rule.secrets if name in set(stored) - set(resent)]
    return [
        (secret.split(".", 1)[0], RESEND_MESSAGE.format(secret=secret, changed=", ".join(changed)))
        for secret in waiting
    ]
