"""Destinations: link-local and cloud metadata addresses are refused, in every spelling, on
create and change (422 naming the field) and again on the resolved address when a check
connects (a name may resolve to anything later). Private and loopback addresses are fine.

The connect-time tests deny loopback with WATCHPOST_DENIED_NETWORKS, so `localhost` passes
validation as a name and is refused when the check resolves it, while a real server on
loopback proves that nothing was sent.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from tests.factories.api import TEST_PASSWORD, Api, data, errors
from tests.factories.delivery import configure, deliverer_of, deliveries
from tests.factories.engine import engine_of, load, recording_server
from tests.factories.incidents import create_reported_incident
from tests.factories.monitors import MINIMAL, MONITORS
from tests.factories.objects import create_collector, create_target, target_body
from tests.factories.servers import CANARY_DENIED, canary, redirecting_to, tcp_server
from watchpost import destinations, outbound
from watchpost.collectors.models import CollectorTarget
from watchpost.delivery.models import Delivery
from watchpost.destinations import DestinationPolicy, literal_address, parse_networks
from watchpost.monitors.models import Monitor
from watchpost.probes.http import CLIENT
from watchpost.settings import Settings
from watchpost.validation import check_host

WEBHOOKS = "/api/v2/outgoing-webhooks"
CHANNELS = "/api/v2/notification-channels"
LOOPBACK_DENIED = "127.0.0.0/8,::1/128"
METADATA = ipaddress.ip_address("169.254.169.254")
METADATA_NETWORKS = parse_networks("169.254.0.0/16,100.100.100.200/32,192.0.0.192/32")


def full_width(text: str) -> str:
    """text in full-width forms (U+FF01 to U+FF5E), which the UTS #46 mapping folds back."""
    return "".join(chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char for char in text)


# Every spelling of a denied destination a client might try.
DENIED_HOSTS: list[str] = [
    "169.254.169.254",
    "169.254.0.1",
    "fe80::1",
    "FE80::a:b:c:d",
    "fd00:ec2::254",
    "::ffff:169.254.169.254",  # IPv4-mapped
    "::ffff:a9fe:a9fe",
    "::169.254.169.254",  # IPv4-compatible
    "64:ff9b::169.254.169.254",  # NAT64
    "64:ff9b::a9fe:a9fe",
    "2002:a9fe:a9fe::1",  # 6to4
    "2002:a9fe:a9fe:1:2:3:4:5",
    "100.100.100.200",  # Alibaba Cloud
    "::ffff:100.100.100.200",
    "2002:6464:64c8::",
    "192.0.0.192",  # Oracle Cloud
    "64:ff9b::c000:c0",
    "2852039166",  # decimal
    "0xa9fea9fe",  # hex
    "0xA9.0xFE.0xA9.0xFE",
    "0251.0376.0251.0376",  # octal
    "169.254.43518",  # short forms
    "169.16689662",
    "metadata.google.internal",
    "Metadata.Google.Internal.",
    full_width("metadata") + ".google.internal",  # the name, once IDNA has mapped it
]
IP_SPELLINGS = [host for host in DENIED_HOSTS if literal_address(host) is not None]
ALLOWED_HOSTS = [
    "127.0.0.1",
    "localhost",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.0.10",
    "100.64.0.1",
    "::1",
    "fd12:3456::1",
    "2002:a01:203::1",  # 6to4 of 10.1.2.3
    "64:ff9b::a01:203",  # NAT64 of 10.1.2.3
    "2001:db8::a9fe:a9fe",  # no IPv4 address in it
    "169.254.169.254.nip.io",  # a name: checked when it is resolved
    "metadata.google.internal.example.com",
    "bücher.example",  # internationalized names: checked in their xn-- form
    "例え.テスト",
]
# Spellings that an IDNA mapping turns into a denied address: never a host name.
MAPPED_SPELLINGS = [full_width("169.254.169.254"), "169\u3002254\u3002169\u3002254"]


def standard_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def in_url(host: str, path: str = "/") -> str:
    return f"http://[{host}]{path}" if ":" in host else f"http://{host}{path}"


@pytest.fixture
def denied_networks() -> str | None:
    """WATCHPOST_DENIED_NETWORKS for the test (None: unset); parametrize to change it."""
    return None


@pytest.fixture
def settings(
    settings: Settings, denied_networks: str | None, monkeypatch: pytest.MonkeyPatch
) -> Settings:
    """The test's settings, read again with WATCHPOST_DENIED_NETWORKS in the environment."""
    if denied_networks is not None:
        monkeypatch.setenv("WATCHPOST_DENIED_NETWORKS", denied_networks)
    return Settings(
        database_url=settings.database_url,
        secret_key=settings.secret_key,
        data_dir=settings.data_dir,
    )


@pytest.fixture(autouse=True)
def default_policy_afterwards() -> Iterator[None]:
    yield
    destinations.configure(None)


# ------------------------------------------------------------------------- spellings


@pytest.mark.parametrize("host", DENIED_HOSTS)
def test_every_spelling_is_denied_by_the_default_policy(host: str) -> None:
    policy = destinations.current()
    with pytest.raises(destinations.DeniedDestination):
        policy.check_host(host)
    with pytest.raises(destinations.DeniedDestination):
        policy.check_url(in_url(host))
    address = literal_address(host)
    if address is not None:
        carried = destinations.embedded_ipv4(address) or address
        assert carried.version == 6 or any(carried in network for network in METADATA_NETWORKS), (
            host
        )


@pytest.mark.parametrize(
    ("spelling", "carried"),
    [
        ("::ffff:127.0.0.2", "127.0.0.2"),
        ("::127.0.0.2", "127.0.0.2"),
        ("::7f00:2", "127.0.0.2"),
        ("64:ff9b::127.0.0.2", "127.0.0.2"),
        ("2002:7f00:2::", "127.0.0.2"),
        ("2002:7f00:2:ffff:ffff:ffff:ffff:ffff", "127.0.0.2"),
        ("::1", None),
        ("::", None),
        ("64:ff9b:1::7f00:2", None),
        ("2001:db8::7f00:2", None),
        ("127.0.0.2", None),
    ],
)
def test_an_ipv6_address_carrying_an_ipv4_address_counts_as_it(
    spelling: str, carried: str | None
) -> None:
    address = ipaddress.ip_address(spelling)
    expected = ipaddress.ip_address(carried) if carried else None
    assert destinations.embedded_ipv4(address) == expected
    destinations.configure("127.0.0.2/32")
    denied = expected is not None or spelling == "127.0.0.2"
    assert (destinations.current().denied_network(address) is not None) == denied
    try:
        outbound.check_address(spelling, spelling)  # what a connection checks
    except outbound.DeniedAddress as exc:
        assert denied and "127.0.0.2/32" in str(exc)
    else:
        assert not denied


@pytest.mark.parametrize("host", ALLOWED_HOSTS)
def test_private_loopback_and_names_pass_validation(host: str) -> None:
    destinations.current().check_host(host)
    destinations.current().check_url(in_url(host))


def test_legacy_spellings_mean_what_the_resolver_makes_of_them() -> None:
    for host in ("2852039166", "0xa9fea9fe", "0251.0376.0251.0376", "169.254.43518"):
        assert literal_address(host) == METADATA
        resolved = socket.getaddrinfo(host, 80, type=socket.SOCK_STREAM)[0][4][0]
        assert resolved == "169.254.169.254", host
    for name in ("db.internal", "123.abc", "1e100.net", "cafe"):
        assert literal_address(name) is None


def test_the_list_is_replaced_not_extended() -> None:
    policy = DestinationPolicy(parse_networks("10.0.0.0/8"))
    policy.check_host("169.254.169.254")
    with pytest.raises(destinations.DeniedDestination, match=r"10\.0\.0\.0/8"):
        policy.check_host("::ffff:10.1.2.3")
    with pytest.raises(destinations.DeniedDestination, match="metadata"):
        policy.check_host("metadata.google.internal")  # names are denied whatever the list
    DestinationPolicy(parse_networks("")).check_host("169.254.169.254")


def test_a_bad_cidr_is_refused_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHPOST_DENIED_NETWORKS", "169.254.0.0/16, not-a-network")
    with pytest.raises(ValidationError, match="not-a-network"):
        Settings()
    monkeypatch.setenv("WATCHPOST_DENIED_NETWORKS", "10.0.0.0/8, fe80::/10")
    assert Settings().denied_networks == "10.0.0.0/8, fe80::/10"


# -------------------------------------------------------------- validation, per field


async def _target_url(api: Api, kind: str, **fields: Any) -> tuple[str, str]:
    owner = await create_collector(api)
    collection = f"/api/v1/collectors/{owner['id']}/targets"
    target = await create_target(api, owner["id"], target_body(kind, **fields))
    return collection, f"{collection}/{target['id']}"


def _refused(response: Any, field: str) -> None:
    messages, fields = errors(response)
    assert fields == [field], messages
    assert "denied network" in messages[0] or "cloud metadata host" in messages[0], messages


# (resource, field, the value for a host) → create body and PATCH body.
FIELDS: dict[str, tuple[str, Any]] = {
    "target host": ("host", lambda host: host),
    "target endpoint": ("endpoint", lambda host: in_url(host, "/metrics")),
    "target listen_ip": ("listen_ip", lambda host: host),
    "monitor url (http)": ("url", lambda host: in_url(host, "/health")),
    "monitor url (host)": ("url", lambda host: host),
    "monitor url (dns server)": ("url", lambda host: host),
    "webhook url": ("url", lambda host: in_url(host, "/hook")),
    "channel url": ("url", lambda host: in_url(host, "/hook").replace("http://", "json://")),
}
KIND_OF = {"target host": "postgres", "target endpoint": "prometheus", "target listen_ip": "nginx"}
MONITOR_TYPE = {
    "monitor url (http)": "status",
    "monitor url (host)": "tcp",
    "monitor url (dns server)": "dns",
}


async def _create_and_patch(api: Api, resource: str, value: Any) -> tuple[Any, Any]:
    """(create response, PATCH response of an existing object) with the field set to value."""
    field, _ = FIELDS[resource]
    if resource in KIND_OF:
        collection, url = await _target_url(api, KIND_OF[resource])
        create = await api.post(collection, target_body(KIND_OF[resource], **{field: value}))
        return create, await api.patch(url, {field: value})
    if resource in MONITOR_TYPE:
        body = {**MINIMAL[MONITOR_TYPE[resource]]}
        existing = data(await api.post(MONITORS, body), 201)["id"]
        create = await api.post(MONITORS, {**body, field: value})
        return create, await api.patch(f"{MONITORS}/{existing}", {field: value})
    collection, body = WEBHOOKS, {"url": "https://hooks.example/in"}
    if resource == "webhook url":
        body["trigger_type"] = "incident_change"
    else:
        collection, body = CHANNELS, {"url": "json://hooks.example/in"}
    existing = data(await api.post(collection, body), 201)["id"]
    create = await api.post(collection, {**body, field: value})
    return create, await api.patch(f"{collection}/{existing}", {field: value})


@pytest.mark.parametrize("resource", FIELDS)
async def test_denied_destinations_are_422_naming_the_field(api: Api, resource: str) -> None:
    field, spell = FIELDS[resource]
    hosts = IP_SPELLINGS if field == "listen_ip" else DENIED_HOSTS
    misses = []
    for host in hosts:
        if field == "listen_ip" and not standard_ip(host):
            continue  # listen_ip takes an IP address only; other spellings are 422 anyway
        create, patch = await _create_and_patch(api, resource, spell(host))
        for what, response in (("create", create), ("patch", patch)):
            try:
                _refused(response, field)
            except AssertionError as exc:
                misses.append(f"{what} {host}: {exc}")
    assert not misses, "\n".join(misses)


@pytest.mark.parametrize("host", MAPPED_SPELLINGS)
def test_a_spelling_mapped_to_a_denied_address_is_refused(host: str) -> None:
    with pytest.raises(destinations.DeniedDestination):
        destinations.current().check_host(host)
    with pytest.raises(ValueError, match="must be a host name or an IP address"):
        check_host(host)


@pytest.mark.parametrize("resource", FIELDS)
async def test_mapped_spellings_are_422_naming_the_field(api: Api, resource: str) -> None:
    field, spell = FIELDS[resource]
    for host in MAPPED_SPELLINGS:
        create, patch = await _create_and_patch(api, resource, spell(host))
        for response in (create, patch):
            assert errors(response)[1] == [field], (host, response.text)


@pytest.mark.parametrize("resource", FIELDS)
async def test_private_and_loopback_destinations_are_fine(api: Api, resource: str) -> None:
    field, spell = FIELDS[resource]
    for host in ALLOWED_HOSTS:
        if field == "listen_ip" and not standard_ip(host):
            continue
        if resource == "channel url" and not host.isascii():
            continue  # Apprise's URLs take a host in its xn-- form only (Apprise refuses it)
        create, patch = await _create_and_patch(api, resource, spell(host))
        assert create.status_code == 201, (host, create.text)
        assert patch.status_code == 200, (host, patch.text)


@pytest.mark.parametrize("denied_networks", ["10.0.0.0/8"])
async def test_the_configured_list_replaces_the_default(api: Api) -> None:
    create, _ = await _create_and_patch(api, "target host", "10.20.30.40")
    _refused(create, "host")
    create, _ = await _create_and_patch(api, "monitor url (http)", in_url("169.254.169.254"))
    assert create.status_code == 201, create.text


# ----------------------------------------------------------- connect time: nothing sent


class Listener:
    def __init__(self) -> None:
        self.port = 0
        self.connections = 0


@asynccontextmanager
async def listener() -> AsyncIterator[Listener]:
    """A loopback TCP server that counts connections and reads what comes."""
    seen = Listener()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen.connections += 1
        await reader.read(4096)

    async with tcp_server(handle) as port:
        seen.port = port
        try:
            yield seen
        finally:
            await CLIENT.aclose()


def assert_denied_at_connect(error: str | None, host: str = "localhost") -> None:
    assert error is not None
    assert f"{host} resolves to " in error, error
    assert "a denied network" in error and "nothing was sent" in error, error


# Each kind with a field that points it at host:port.
TARGET_FIELDS: dict[str, dict[str, Any]] = {
    "postgres": {"ssl_mode": "disable", "password": TEST_PASSWORD},
    "mysql": {"tls": "false", "password": TEST_PASSWORD},
    "redis": {"password": TEST_PASSWORD},
    "mongodb": {"username": "watcher", "password": TEST_PASSWORD},
    "memcached": {},
    "elasticsearch": {"scheme": "http"},
    "nginx": {},
    "apache": {},
    "kafka": {},
}


@pytest.mark.parametrize("denied_networks", [LOOPBACK_DENIED])
@pytest.mark.parametrize("kind", [*TARGET_FIELDS, "prometheus"])
async def test_a_target_whose_host_resolves_to_a_denied_network_sends_nothing(
    api: Api, app: FastAPI, kind: str
) -> None:
    async with listener() as server:
        if kind == "prometheus":
            fields: dict[str, Any] = {"endpoint": f"http://localhost:{server.port}/metrics"}
        else:
            fields = {"host": "localhost", "port": server.port, **TARGET_FIELDS[kind]}
        _, url = await _target_url(api, kind, **fields)
        await engine_of(app).tick()
        assert server.connections == 0
    row = await load(app, CollectorTarget, url.rsplit("/", 1)[1])
    assert row.status == "down"
    assert_denied_at_connect(row.last_error)


@pytest.mark.parametrize("denied_networks", [LOOPBACK_DENIED])
@pytest.mark.parametrize(
    "monitor_type", ["status", "keyword", "tcp", "udp", "smtp", "pop", "imap", "dns", "ping"]
)
async def test_a_monitor_whose_host_resolves_to_a_denied_network_sends_nothing(
    api: Api, app: FastAPI, monitor_type: str
) -> None:
    async with listener() as server:
        body = {**MINIMAL[monitor_type], "url": "localhost"}
        if monitor_type in ("status", "keyword"):
            body["url"] = f"http://localhost:{server.port}/health"
        if monitor_type in ("tcp", "udp"):  # mail types take their standard ports only
            body["port"] = str(server.port)
        monitor = data(await api.post(MONITORS, body), 201)
        await engine_of(app).tick()
        assert server.connections == 0
    assert_denied_at_connect((await load(app, Monitor, monitor["id"])).last_error)


async def test_an_address_denied_after_validation_is_refused_at_connect(
    api: Api, app: FastAPI
) -> None:
    """A literal address stored before the list changed: aiohttp does not resolve IP literals,
    so the socket factory is what refuses it."""
    async with recording_server() as server:
        monitor = data(await api.post(MONITORS, {"url": server.url("/health")}), 201)
        destinations.configure("127.0.0.1/32")
        await engine_of(app).tick()
        assert not server.hits
    error = (await load(app, Monitor, monitor["id"])).last_error
    assert error is not None and "127.0.0.1 is in a denied network (127.0.0.1/32)" in error


@pytest.mark.parametrize("denied_networks", [CANARY_DENIED])
async def test_a_redirect_to_a_denied_address_is_not_followed(api: Api, app: FastAPI) -> None:
    async with canary() as trap, redirecting_to(trap.url("/meta")) as port:
        monitor = data(await api.post(MONITORS, {"url": f"http://127.0.0.1:{port}/start"}), 201)
        await engine_of(app).tick()
        await CLIENT.aclose()
    assert trap.connections == 0
    error = (await load(app, Monitor, monitor["id"])).last_error
    assert error is not None and "127.0.0.2 is in a denied network" in error, error


# An IPv6 spelling of the canary's 127.0.0.2 of each kind, as the probes get them.
CARRYING_CANARY = ["::ffff:127.0.0.2", "::127.0.0.2", "64:ff9b::7f00:2", "2002:7f00:2::1"]


@pytest.mark.parametrize("spelling", CARRYING_CANARY)
async def test_an_ipv6_address_carrying_a_denied_one_is_refused_at_connect(
    api: Api, app: FastAPI, spelling: str
) -> None:
    """Stored while allowed, then the list denies the IPv4 address it carries: an HTTP
    monitor (aiohttp's socket factory) and a memcached target (outbound.open_connection)."""
    async with canary() as trap:
        monitor = data(
            await api.post(MONITORS, {"url": f"http://[{spelling}]:{trap.port}/health"}), 201
        )
        _, target = await _target_url(api, "memcached", host=spelling, port=trap.port)
        destinations.configure(CANARY_DENIED)
        await engine_of(app).tick()
        await CLIENT.aclose()
    assert trap.connections == 0
    errors = [
        (await load(app, Monitor, monitor["id"])).last_error,
        (await load(app, CollectorTarget, target.rsplit("/", 1)[1])).last_error,
    ]
    for error in errors:
        assert error is not None and "in a denied network (127.0.0.2/32)" in error, errors


# ------------------------------------------- connect time: what Apprise sends, any library


async def _channel_delivery(app: FastAPI, api: Api, url: str) -> Delivery:
    """A channel sending to url, told of a reported incident; its delivery after one try."""
    data(await api.post(CHANNELS, {"url": url}), 201)
    await create_reported_incident(api)
    await deliverer_of(app).tick()
    [delivery] = [d for d in await deliveries(app) if d.channel == "apprise"]
    return delivery


def assert_refused_delivery(delivery: Delivery, refusal: str) -> None:
    assert delivery.state != "succeeded" and delivery.attempts == 1, delivery.state
    assert delivery.error is not None and refusal in delivery.error, delivery.error
    assert "a denied network" in delivery.error, delivery.error
    assert "nothing was sent to it" in delivery.error, delivery.error


@pytest.mark.parametrize("denied_networks", [LOOPBACK_DENIED])
@pytest.mark.parametrize("scheme", ["json", "mailto"])
async def test_a_channel_whose_host_resolves_to_a_denied_network_sends_nothing(
    api: Api, app: FastAPI, scheme: str
) -> None:
    """`localhost` passes validation as a name; requests (json://) and smtplib (mailto://)
    then resolve it to a denied address, and neither connects."""
    async with listener() as server:
        url = f"json://localhost:{server.port}/chat"
        if scheme == "mailto":
            url = (
                f"mailto://bot:{TEST_PASSWORD}@localhost:{server.port}?smtp=localhost"
                "&from=bot@example.com&to=ops@example.com&mode=insecure"
            )
        delivery = await _channel_delivery(app, api, url)
        assert server.connections == 0
    assert_refused_delivery(delivery, "localhost resolves to ")


@pytest.mark.parametrize("denied_networks", [CANARY_DENIED])
async def test_a_channel_redirected_to_a_denied_address_does_not_follow(
    api: Api, app: FastAPI
) -> None:
    async with canary() as trap, redirecting_to(trap.url("/latest/meta-data/")) as port:
        delivery = await _channel_delivery(app, api, f"json://127.0.0.1:{port}/chat")
    assert trap.connections == 0
    assert_refused_delivery(delivery, "127.0.0.2 is in a denied network (127.0.0.2/32)")


@pytest.mark.parametrize("denied_networks", [LOOPBACK_DENIED])
async def test_the_sms_service_of_the_settings_is_held_to_the_same_rule(
    api: Api, app: FastAPI
) -> None:
    async with listener() as server:
        configure(app, sms_url=f"json://localhost:{server.port}/sms")
        await create_reported_incident(api, sms=True, email=False)
        await deliverer_of(app).tick()
        assert server.connections == 0
    [delivery] = await deliveries(app)
    assert delivery.channel == "sms"
    assert_refused_delivery(delivery, "localhost resolves to ")


@pytest.mark.parametrize("denied_networks", [LOOPBACK_DENIED])
async def test_only_connections_inside_a_send_are_policed(app: FastAPI) -> None:
    """The guard holds in the send's context and the threads that copy it; the process's
    other connections (its database, the operator's ClickHouse) are left alone."""
    async with listener() as server:
        where = ("localhost", server.port)
        with outbound.policed() as refusals, pytest.raises(outbound.DeniedAddress):
            await asyncio.to_thread(socket.create_connection, where)
        assert refusals.messages == [
            "localhost resolves to 127.0.0.1, a denied network (127.0.0.0/8)"
        ]
        sock = await asyncio.to_thread(socket.create_connection, where)
        assert sock.getpeername()[:2] == ("127.0.0.1", server.port)
        sock.close()


@pytest.mark.parametrize("denied_networks", [LOOPBACK_DENIED])
async def test_the_outbound_module_refuses_before_connecting(app: FastAPI) -> None:
    """What webhook delivery will use: resolve, check, connect to the checked address."""
    async with listener() as server:
        with pytest.raises(outbound.DeniedAddress, match="localhost resolves to"):
            await outbound.open_connection("localhost", server.port)
        with pytest.raises(outbound.DeniedAddress, match="metadata"):
            await outbound.resolve("metadata.google.internal", 80)
        assert server.connections == 0
        destinations.configure(None)
        _, writer = await outbound.open_connection("localhost", server.port)
        writer.close()
        await writer.wait_closed()
    assert server.connections == 1
