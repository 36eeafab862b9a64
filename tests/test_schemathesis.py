"""/openapi.json describes what the server does: schemathesis sends generated requests to every
operation it publishes, on a real uvicorn server over each backend, and checks every answer.

Checks: no 5xx, a status code the operation documents, a content type and body that match
the documented response, and 405 with an `Allow` header that matches the schema for methods
the path does not document. Both generation modes run: schema-valid requests (positive) and
requests that break the schema (negative, which must get a documented error). Path ids are
generated, and also fixed to objects that exist (every kind's first object has id 1 on a fresh
database), so bodies reach validation and the database instead of stopping at a 404. Paths
served again under an alias prefix (routes.PREFIX_ALIASES: /api/v3/incidents) are the same
handlers as the paths they copy and are left out.
Deletions run last. Runs are deterministic (the coverage phase enumerates; the random cases
are derandomized) and bounded.

The coverage phase's schema-valid cases run on both backends: they reach the database with
values at the limits of every field, where SQLite and PostgreSQL differ. Its cases that break
the schema (about 3,000, the larger part) are shared out, every other one to each backend:
the server refuses them while validating the request, on the same code whatever the
database, so a second send repeats the first. Likewise the random cases: the schema-valid
ones run on both backends, the schema-breaking ones on one backend per operation (every
other operation each). Every operation gets both kinds of request on each backend, every
coverage case and every random case runs once a suite at least: per backend about 1,750
positive and 1,500 negative coverage cases and about 750 random ones.
"""

from __future__ import annotations

import asyncio
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import requests
import schemathesis
import uvicorn
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    allow_header_conformance,
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from tests.conftest import Backend
from watchpost.app import create_app
from watchpost.context import AppContext
from watchpost.routes import PREFIX_ALIASES
from watchpost.settings import Settings
from watchpost.teams.service import create_token

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    unsupported_method,
    allow_header_conformance,
]
NEGATIVE = schemathesis.GenerationMode.NEGATIVE
MODES = (schemathesis.GenerationMode.POSITIVE, NEGATIVE)
EXAMPLES_PER_STRATEGY = 3
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# One object of each kind, made through the API before the run: each gets id 1. Addresses are
# on loopback (the engine is off, so nothing is checked; but nothing could leave the machine).
UNUSED_RULES = {
    "started_rule_type": "unused",
    "acknowledged_rule_type": "unused",
    "resolved_rule_type": "unused",
}
SEED: list[tuple[str, dict[str, Any]]] = [
    ("/api/v1/collectors", {"name": "seed"}),
    ("/api/v1/collectors/1/targets", {"kind": "redis", "host": "127.0.0.1", "port": 6379}),
    ("/api/v1/source-groups", {"name": "seed"}),
    ("/api/v1/sources", {"name": "seed", "platform": "python", "source_group_id": 1}),
    ("/api/v2/monitor-groups", {"name": "seed"}),
    ("/api/v2/monitors", {"url": "http://127.0.0.1:9/", "monitor_group_id": 1}),
    ("/api/v2/heartbeat-groups", {"name": "seed"}),
    ("/api/v2/heartbeats", {"name": "seed", "heartbeat_group_id": 1}),
    ("/api/v2/status-pages", {"subdomain": "seed"}),
    ("/api/v2/status-pages/1/sections", {"name": "seed"}),
    ("/api/v2/status-pages/1/resources", {"resource_type": "Monitor", "resource_id": "1"}),
    # a status report and its first status update (both id 1)
    (
        "/api/v2/status-pages/1/status-reports",
        {"affected_resources": [{"status_page_resource_id": "1", "status": "downtime"}]},
    ),
    (
        "/api/v2/outgoing-webhooks",
        {"url": "http://127.0.0.1:9/hook", "trigger_type": "incident_change"},
    ),
    ("/api/v2/incidents", {"name": "seed", "summary": "seeded", "heartbeat_id": 1}),
    ("/api/v2/urgency-groups", {"name": "seed"}),
    ("/api/v2/urgencies", {"name": "seed", "urgency_group_id": 1}),
    ("/api/v2/policy-groups", {"name": "seed"}),
    ("/api/v2/status-page-groups", {"name": "seed"}),
    ("/api/v2/incoming-webhooks", UNUSED_RULES),
    ("/api/v2/email-integrations", UNUSED_RULES),
]


async def _mint_token(settings: Settings) -> str:
    ctx = AppContext.build(settings)
    try:
        async with ctx.db.write_sessions() as session, session.begin():
            return await create_token(session, team_name="fuzz", now=ctx.clock.now())
    finally:
        await ctx.db.dispose()


@contextmanager
def serving(settings: Settings) -> Iterator[str]:
    """The app under uvicorn on a free loopback port, in a thread of its own; yields its URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(settings), log_level="warning", lifespan="on", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    ready = threading.Event()
    for _ in range(1000):  # bounded readiness poll, not a wait for a check
        if server.started:
            break
        ready.wait(0.01)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def _seed(base_url: str, session: requests.Session) -> str:
    """Makes the SEED objects; returns the heartbeat's ping token."""
    token = ""
    for path, body in SEED:
        response = session.post(f"{base_url}{path}", json=body, timeout=30)
        assert response.status_code == 201, (path, response.text)
        created = response.json()["data"]
        assert created["id"] == "1", (path, created)
        if path == "/api/v2/heartbeats":
            token = created["attributes"]["url"].rsplit("/", 1)[1]
    return token


def _existing(path: str, ping_token: str) -> dict[str, str]:
    """Path parameters naming the seeded objects (every id is 1)."""
    names = re.findall(r"\{([^}]+)\}", path)
    return {name: ping_token if name == "token" else "1" for name in names if name != "exit_code"}


def _cover(
    operation: Any, base_url: str, session: requests.Session, ping_token: str, share: int
) -> int:
    """schemathesis's coverage phase: each parameter and body field at its boundaries, just
    past them and of wrong types, required parts left out, undocumented methods. Sent to the
    seeded objects, so that bodies are judged by the server rather than stopped by a 404.
    Every positive case; of the negative ones, every other (`share` 0 or 1: which half).
    Returns how many requests were sent."""
    schema = operation.schema
    fixed = _existing(operation.path, ping_token)
    sent = negative = 0
    for case in schema.iter_coverage_cases(
        operation,
        generation_modes=list(MODES),
        generation_config=schema.config.generation_for(operation=operation),
    ):
        if case.meta is not None and case.meta.generation.mode == NEGATIVE:
            negative += 1
            if negative % 2 != share:
                continue
        if fixed:
            case.path_parameters = {**(case.path_parameters or {}), **fixed}
        case.call_and_validate(base_url=base_url, session=session, checks=CHECKS)
        sent += 1
    return sent


def _exercise(
    operation: Any, base_url: str, session: requests.Session, ping_token: str, *, negative: bool
) -> None:
    """Random requests, with generated ids and with the seeded objects' ids: schema-valid ones,
    and (negative) ones that break the schema."""
    fixed = _existing(operation.path, ping_token)
    modes = MODES if negative else (schemathesis.GenerationMode.POSITIVE,)
    strategies = [operation.as_strategy(generation_mode=mode) for mode in modes]
    if fixed:
        strategies += [
            operation.as_strategy(generation_mode=mode, path_parameters=fixed) for mode in modes
        ]

    @settings(
        max_examples=EXAMPLES_PER_STRATEGY * len(strategies),
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate],
    )
    @given(case=st.one_of(*strategies))
    def run(case: Any) -> None:
        case.call_and_validate(base_url=base_url, session=session, checks=CHECKS)

    run()


def _aliased(path: str) -> bool:
    """A path served again under an alias prefix (routes.PREFIX_ALIASES): the same handlers
    as the path it copies, which the run already exercises."""
    return any(path.startswith(alias + "/") or path == alias for _, alias in PREFIX_ALIASES)


def _documented_operations(spec: dict[str, Any]) -> int:
    return sum(
        1
        for path, item in spec["paths"].items()
        for method in item
        if method in METHODS and not _aliased(path) and not _probe(path)
    )


def _probe(path: str) -> bool:
    """The probe agents' protocol takes a probe token, not this run's API token: it has
    tests of its own (tests/locations/test_probe_protocol.py)."""
    return path.startswith("/api/probe/v1/")


def _unthrottled(settings: Settings) -> Settings:
    """The run sends thousands of requests a minute with one token: no per-token rate limit
    (0), so that it measures conformance, not throttling."""
    return settings.model_copy(update={"rate_limit_per_minute": 0})


def test_every_operation_conforms(backend: Backend, settings: Settings) -> None:
    settings = _unthrottled(settings)
    token = asyncio.run(_mint_token(settings))
    with serving(settings) as base_url, requests.Session() as session:
        # Nothing from the environment: each request would otherwise look for proxy variables
        # (a walk through the whole environment) and a .netrc file, ≈ 0.25 ms a request,
        # ≈ 1.5 s of CPU a run, for a server on loopback that no proxy may stand in front of.
        session.trust_env = False
        session.headers["Authorization"] = f"Bearer {token}"
        ping_token = _seed(base_url, session)
        spec = session.get(f"{base_url}/openapi.json", timeout=30).json()
        schema = schemathesis.openapi.from_dict(spec)
        operations = []
        for result in schema.get_all_operations():
            assert isinstance(result, Ok), result.err()  # every operation's schema is valid
            if not _aliased(result.ok().path) and not _probe(result.ok().path):
                operations.append(result.ok())
        # Deleting first would leave the other operations nothing to reach.
        operations.sort(key=lambda operation: operation.method.lower() == "delete")
        failures: list[str] = []
        tested = covered = 0
        share = 0 if backend.name == "sqlite" else 1  # which half of the negative cases
        for index, operation in enumerate(operations):
            try:
                covered += _cover(operation, base_url, session, ping_token, share)
                negative = index % 2 == share
                _exercise(operation, base_url, session, ping_token, negative=negative)
            except (Exception, BaseExceptionGroup) as exc:  # report every operation's failure
                failures.append(f"{operation.method.upper()} {operation.path}: {str(exc)[:1500]}")
            tested += 1
    assert tested == _documented_operations(spec) > 80
    assert covered > 20 * tested
    assert not failures, f"{len(failures)} operations failed:\n\n" + "\n\n".join(failures)
