"""DNS monitors: the server at url answers A or AAAA records for the name in request_body."""

from __future__ import annotations

import asyncio
import socket
from typing import TYPE_CHECKING

from watchpost import outbound
from watchpost.probes.base import ProbeResult, Stopwatch, failure
from watchpost.probes.errors import Address, describe
from watchpost.probes.monitors.common import ConfigError, target, timed_out

if TYPE_CHECKING:
    import dns.asyncresolver
    import dns.rdatatype
    import dns.resolver

    from watchpost.probes.monitors.check import MonitorCheck

ADDRESSES_SHOWN = 5


async def _server_ip(where: Address) -> str:
    """The DNS server's address: url may name it, and the resolver needs an IP."""
    infos = await outbound.resolve(where.host, where.port, kind=socket.SOCK_DGRAM)
    return outbound.udp_address(infos)[0]


async def _query(
    resolver: dns.asyncresolver.Resolver, name: str, kind: dns.rdatatype.RdataType
) -> list[str]:
    answer = await resolver.resolve(name, kind, raise_on_no_answer=False)
    return [record.to_text() for record in answer]


async def dns_lookup(settings: MonitorCheck, *, timeout: float) -> ProbeResult:
    """Asks for A and AAAA at once; passes when either has records."""
    # dnspython loads at the first DNS monitor's check, not with every other probe.
    import dns.asyncresolver
    import dns.exception
    import dns.nameserver
    import dns.rdatatype
    import dns.resolver

    watch = Stopwatch()
    name = (settings.request_body or "").strip()
    try:
        where = target(settings, 53)
        if not name:
            raise ConfigError("request_body must hold the domain name to resolve")
    except ConfigError as exc:
        return failure(watch, str(exc))
    try:
        async with asyncio.timeout(timeout):
            server = await _server_ip(where)
            resolver = dns.asyncresolver.Resolver(configure=False)
            resolver.nameservers = [dns.nameserver.Do53Nameserver(server, where.port)]
            resolver.timeout = resolver.lifetime = timeout
            found = await asyncio.gather(
                _query(resolver, name, dns.rdatatype.A),
                _query(resolver, name, dns.rdatatype.AAAA),
            )
    except (TimeoutError, dns.exception.Timeout):
        return failure(watch, f"{timed_out(timeout)} waiting for DNS server {where}")
    except dns.resolver.NXDOMAIN:
        return failure(watch, f"NXDOMAIN: {name} does not exist (DNS server {where})")
    except dns.resolver.NoNameservers as exc:
        return failure(watch, f"DNS server {where} did not answer {name}: {_rcodes(exc)}")
    except dns.exception.DNSException as exc:
        return failure(watch, f"DNS query for {name} failed: {exc}")
    except OSError as exc:
        return failure(watch, describe(exc, where))
    addresses = found[0] + found[1]
    if not addresses:
        return failure(watch, f"no A or AAAA records for {name} (DNS server {where})")
    return ProbeResult(
        ok=True,
        latency_ms=watch.ms(),
        metrics={"records": float(len(addresses))},
        details={"addresses": ", ".join(addresses[:ADDRESSES_SHOWN])},
    )


def _rcodes(exc: dns.resolver.NoNameservers) -> str:
    errors = exc.kwargs.get("errors") or []
    texts = sorted({str(error[3]) for error in errors if len(error) > 3})
    return "; ".join(texts) or "no usable answer"
