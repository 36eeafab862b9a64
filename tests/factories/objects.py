"""Which API routes exist, which are public, and how to make one object of each kind.

The route-walking tests (test_auth.py, test_isolation.py) read this module, so a new
route is covered the moment its router is registered in watchpost.routes.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from itertools import count
from typing import Any, cast

import httpx
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts

from tests.factories.api import TEST_API_KEY, TEST_PASSWORD, Api, data
from watchpost.collectors.target_kinds import KIND_RULES
from watchpost.people.accounts import create_user

# Routes that answer without a token. Add a route here only when the spec or the domain's
# documentation says it is public (e.g. a heartbeat's ping URL); everything else must 401.
PUBLIC_PATHS: frozenset[str] = frozenset(
    # "/", "/v1/logs", "/v1/metrics": log ingestion, with a source token (tests/logs_ingest)
    {"/healthz", "/openapi.json", "/docs", "/redoc", "/", "/v1/logs", "/v1/metrics"}
)
PUBLIC_PREFIXES: tuple[str, ...] = (
    "/docs/",
    "/api/v1/heartbeat/",
    "/acknowledge/",
    "/api/v1/incoming-webhook/",
    "/status/",
    "/subscriptions/",
    "/api/probe/v1/",  # probe agents, with a probe token (tests/locations)
)

# A value for every target field, valid for the kinds that accept it.
TARGET_VALUES: dict[str, Any] = {
    "host": "db.internal",
    "port": 5432,
    "service": "web-1",
    "listen_ip": "10.0.0.7",
    "endpoint": "http://prometheus.internal:9090/metrics",
    "username": "watcher",
    "password": TEST_PASSWORD,
    "api_key": TEST_API_KEY,
    "ssl_mode": "require",
    "tls": "skip-verify",
    "scheme": "https",
}

_names = count(1)


def unique_name(prefix: str) -> str:
    return f"{prefix}-{next(_names)}"


def target_body(kind: str, *, optional: bool = False, **overrides: Any) -> dict[str, Any]:
    """A valid create body for kind: its required fields (and its optional ones if asked)."""
    rule = KIND_RULES[kind]
    names = ("host", *rule.required, *(rule.optional if optional else ()))
    body = {"kind": kind, **{name: TARGET_VALUES[name] for name in names}}
    body.update(overrides)
    return body


async def create_collector(api: Api, **attributes: Any) -> dict[str, Any]:
    body = {"name": unique_name("collector"), **attributes}
    return data(await api.post("/api/v1/collectors", body), 201)


async def create_target(api: Api, collector_id: str, body: dict[str, Any]) -> dict[str, Any]:
    return data(await api.post(f"/api/v1/collectors/{collector_id}/targets", body), 201)


# ------------------------------------------------------------------------ the routes


@dataclass(frozen=True)
class Endpoint:
    path: str
    method: str
    route: APIRoute


def is_public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)


def api_endpoints(app: FastAPI) -> Iterator[Endpoint]:
    """Every (path, method) of the app that needs a token, routers included at any depth.

    Routes left out of the OpenAPI schema are left out here too: the live tail's event stream
    (which OpenAPI cannot describe, and which a schema-driven client would wait on forever)
    has tests of its own (tests/logs_query/test_tail.py)."""
    # FastAPI >= 0.16x keeps included routers nested in app.routes; this flattens them.
    for context in iter_route_contexts(app.routes):
        route, path = context.original_route, context.path
        if (
            isinstance(route, APIRoute)
            and route.include_in_schema
            and path is not None
            and not is_public(path)
        ):
            for method in sorted((context.methods or set()) - {"HEAD", "OPTIONS"}):
                yield Endpoint(path, method, route)


def fill(path: str, value: str = "1") -> str:
    """The path with every {parameter} replaced by value."""
    return re.sub(r"\{[^}]+\}", value, path)


# ------------------------------------------------------------ the object registry
#
# ONE ENTRY PER OBJECT ROUTE. test_isolation.py walks every route that has a path parameter
# and needs the entry whose `route` is that path or its longest prefix (so
# /api/v1/collectors/{collector_id}/targets is covered by the collector's entry). To register
# a domain, add a function below decorated with
#     @register("/api/v2/monitors/{monitor_id}", change={"url": "https://changed.example"})
#     async def monitor(api: Api) -> str: ...   # create one object through the API, return its URL
# `change` is a valid PATCH body for the object (sent by another team, must change nothing);
# `bodies` maps "METHOD /suffix" (suffix after the object URL) to the body sent to other
# routes under the object, e.g. {"POST /pause": {}}; the default body is {}.
# Add entries for: sources, source-groups, monitors, monitor-groups, heartbeats,
# heartbeat-groups, outgoing-webhooks (and any later domain with /{id} routes).

Factory = Callable[[Api], Awaitable[str]]


@dataclass(frozen=True)
class ObjectKind:
    route: str
    create: Factory
    change: dict[str, Any]
    bodies: dict[str, dict[str, Any]] = field(default_factory=dict)
    deletable: bool = True
    """Whether the object has a DELETE route (a webhook's delivery log entries do not)."""


OBJECTS: dict[str, ObjectKind] = {}


def register(
    route: str,
    *,
    change: dict[str, Any],
    bodies: dict[str, dict[str, Any]] | None = None,
    deletable: bool = True,
) -> Callable[[Factory], Factory]:
    def decorate(factory: Factory) -> Factory:
        assert route not in OBJECTS, f"{route} is registered twice"
        OBJECTS[route] = ObjectKind(route, factory, change, bodies or {}, deletable)
        return factory

    return decorate


def covering(path: str) -> ObjectKind | None:
    """The registered object kind whose route is path or its longest prefix."""
    candidates = [
        kind for route, kind in OBJECTS.items() if path == route or path.startswith(route + "/")
    ]
    return max(candidates, key=lambda kind: len(kind.route), default=None)


@register("/api/v1/collectors/{collector_id}", change={"name": "renamed", "note": "changed"})
async def collector(api: Api) -> str:
    created = await create_collector(api, note="original")
    return f"/api/v1/collectors/{created['id']}"


@register(
    "/api/v1/collectors/{collector_id}/targets/{target_id}",
    change={"host": "changed.internal", "enabled": False},
)
async def collector_target(api: Api) -> str:
    owner = await create_collector(api)
    target = await create_target(api, owner["id"], target_body("postgres", optional=True))
    return f"/api/v1/collectors/{owner['id']}/targets/{target['id']}"


async def _created_url(api: Api, collection: str, body: dict[str, Any]) -> str:
    response = await api.post(collection, body)
    assert response.status_code == 201, response.text
    return f"{collection}/{response.json()['data']['id']}"


@register("/api/v1/sources/{source_id}", change={"name": "renamed", "ingesting_paused": True})
async def source(api: Api) -> str:
    return await _created_url(
        api, "/api/v1/sources", {"name": unique_name("src"), "platform": "python"}
    )


@register(
    "/api/v2/sources/{source_id}",
    change={"name": "renamed", "ingesting_paused": True, "blocked_metrics": ["m"]},
)
async def source_v2(api: Api) -> str:
    return await _created_url(
        api, "/api/v2/sources", {"name": unique_name("src"), "platform": "prometheus_scrape"}
    )


@register("/api/v1/source-groups/{group_id}", change={"name": "renamed-group"})
async def source_group(api: Api) -> str:
    return await _created_url(api, "/api/v1/source-groups", {"name": unique_name("sg")})


@register("/api/v2/monitors/{monitor_id}", change={"url": "https://changed.example"})
async def monitor(api: Api) -> str:
    return await _created_url(api, "/api/v2/monitors", {"url": "https://example.com"})


@register("/api/v2/monitor-groups/{group_id}", change={"name": "renamed-group"})
async def monitor_group(api: Api) -> str:
    return await _created_url(api, "/api/v2/monitor-groups", {"name": unique_name("mg")})


@register("/api/v2/heartbeats/{heartbeat_id}", change={"name": "renamed", "period": 120})
async def heartbeat(api: Api) -> str:
    return await _created_url(api, "/api/v2/heartbeats", {"name": unique_name("hb")})


@register("/api/v2/heartbeat-groups/{group_id}", change={"name": "renamed-group"})
async def heartbeat_group(api: Api) -> str:
    return await _created_url(api, "/api/v2/heartbeat-groups", {"name": unique_name("hg")})


@register(
    "/api/v2/outgoing-webhooks/{outgoing_webhook_id}",
    change={"url": "https://changed.example/hook"},
)
async def outgoing_webhook(api: Api) -> str:
    return await _created_url(
        api,
        "/api/v2/outgoing-webhooks",
        {"url": "https://example.com/hook", "trigger_type": "incident_change"},
    )


@register(
    "/api/v2/outgoing-webhooks/{outgoing_webhook_id}/deliveries/{delivery_id}",
    change={},
    deletable=False,
)
async def webhook_delivery(api: Api) -> str:
    """A delivery, made by the webhook's test route (nothing listens on port 9: it fails at
    once, and is kept in the webhook's deliveries)."""
    hook = await _created_url(
        api,
        "/api/v2/outgoing-webhooks",
        {"url": "http://127.0.0.1:9/hook", "trigger_type": "incident_change"},
    )
    tested = await api.post(f"{hook}/test")
    assert tested.status_code == 200, tested.text
    return f"{hook}/deliveries/{tested.json()['data']['id']}"


@register("/api/v2/notification-channels/{id}", change={"name": "renamed"})
async def notification_channel(api: Api) -> str:
    """A channel to a port nothing listens on (its test route fails at once)."""
    return await _created_url(
        api, "/api/v2/notification-channels", {"url": "json://127.0.0.1:9/hook", "name": "ops"}
    )


@register("/api/v2/pager-duty-webhooks/{id}", change={"severity": "warning"})
async def pagerduty_integration(api: Api) -> str:
    return await _created_url(
        api, "/api/v2/pager-duty-webhooks", {"key": "R0UT1NGKEY", "severity": "critical"}
    )


@register("/api/v3/metadata/{id}", change={"values": [{"type": "String", "value": "changed"}]})
async def metadata_record(api: Api) -> str:
    monitor = await _created_url(api, "/api/v2/monitors", {"url": "https://example.com"})
    body = {
        "owner_type": "Monitor",
        "owner_id": monitor.rsplit("/", 1)[1],
        "key": unique_name("key"),
        "values": [{"value": "original"}],
    }
    return await _created_url(api, "/api/v3/metadata", body)


@register("/api/v2/incoming-webhooks/{id}", change={"name": "renamed", "paused": True})
async def incoming_webhook(api: Api) -> str:
    body = {
        "started_rule_type": "unused",
        "acknowledged_rule_type": "unused",
        "resolved_rule_type": "unused",
    }
    return await _created_url(api, "/api/v2/incoming-webhooks", body)


@register("/api/v2/email-integrations/{id}", change={"name": "renamed", "paused": True})
async def email_integration(api: Api) -> str:
    body = {
        "started_rule_type": "unused",
        "acknowledged_rule_type": "unused",
        "resolved_rule_type": "unused",
    }
    return await _created_url(api, "/api/v2/email-integrations", body)


@register("/api/v3/policies/{id}", change={"name": "renamed"})
async def policy(api: Api) -> str:
    return await _created_url(
        api,
        "/api/v3/policies",
        {
            "name": "On call",
            "steps": [{"type": "escalation", "step_members": [{"type": "entire_team"}]}],
        },
    )


@register("/api/v2/urgencies/{id}", change={"name": "renamed", "sms": True})
async def urgency(api: Api) -> str:
    group = await _created_url(api, "/api/v2/urgency-groups", {"name": "Levels"})
    body = {"name": "High", "urgency_group_id": int(group.rsplit("/", 1)[1])}
    return await _created_url(api, "/api/v2/urgencies", body)


@register("/api/v2/urgency-groups/{id}", change={"name": "renamed", "sort_index": 3})
async def urgency_group(api: Api) -> str:
    return await _created_url(api, "/api/v2/urgency-groups", {"name": "Levels", "sort_index": 1})


@register("/api/v2/policy-groups/{id}", change={"name": "renamed", "sort_index": 3})
async def policy_group(api: Api) -> str:
    return await _created_url(api, "/api/v2/policy-groups", {"name": "Ops", "sort_index": 1})


@register("/api/v2/team-members/{id}", change={}, deletable=False)
async def team_member(api: Api) -> str:
    """A person of the team (people are added with `watchpost user create`, not the API)."""
    transport = api.client._transport
    assert isinstance(transport, httpx.ASGITransport)
    ctx = cast(FastAPI, transport.app).state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        user = await create_user(
            session,
            team_name=api.team_name,
            email=f"{unique_name('member')}@example.com",
            name="Ann Lee",
            now=ctx.clock.now(),
        )
    return f"/api/v2/team-members/{user.id}"


async def _status_page(api: Api) -> str:
    return await _created_url(
        api, "/api/v2/status-pages", {"subdomain": unique_name("page").replace("_", "-").lower()}
    )


@register("/api/v2/status-page-groups/{id}", change={"name": "renamed", "sort_index": 3})
async def status_page_group(api: Api) -> str:
    return await _created_url(
        api, "/api/v2/status-page-groups", {"name": "Public", "sort_index": 1}
    )


@register("/api/v2/status-pages/{status_page_id}", change={"company_name": "Renamed Ltd"})
async def status_page(api: Api) -> str:
    return await _status_page(api)


@register("/api/v2/status-pages/{status_page_id}/sections/{section_id}", change={"name": "Renamed"})
async def status_page_section(api: Api) -> str:
    page = await _status_page(api)
    return await _created_url(api, f"{page}/sections", {"name": "Services"})


@register(
    "/api/v2/status-pages/{status_page_id}/resources/{resource_id}",
    change={"public_name": "Renamed item"},
)
async def status_page_resource(api: Api) -> str:
    page = await _status_page(api)
    return await _created_url(api, f"{page}/resources", {"public_name": "Office Wi-Fi"})


@register("/api/v2/status-pages/{status_page_id}/subscribers/{subscriber_id}", change={})
async def status_page_subscriber(api: Api) -> str:
    subdomain = unique_name("subs").replace("_", "-").lower()
    body = {"subdomain": subdomain, "subscribable": True}
    page = str(data(await api.post("/api/v2/status-pages", body), 201)["id"])
    signed_up = await api.client.post(
        f"/status/{subdomain}/subscribe",
        data={"email": f"{subdomain}@example.com"},
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert signed_up.status_code == 200, signed_up.text
    [row] = (await api.get(f"/api/v2/status-pages/{page}/subscribers")).json()["data"]
    return f"/api/v2/status-pages/{page}/subscribers/{row['id']}"


@register(
    "/api/v2/status-pages/{status_page_id}/status-reports/{status_report_id}",
    change={"title": "Renamed report"},
    bodies={"POST /status-updates": {"message": "Intruder", "affected_resources": []}},
)
async def status_report(api: Api) -> str:
    page = await _status_page(api)
    return await _created_url(api, f"{page}/status-reports", {"title": "Outage"})


@register(
    "/api/v2/status-pages/{status_page_id}/status-reports/{status_report_id}/status-updates/"
    "{status_update_id}",
    change={"message": "Intruder"},
)
async def status_update(api: Api) -> str:
    report = await status_report(api)
    return await _created_url(
        api, f"{report}/status-updates", {"message": "Fixed", "affected_resources": []}
    )


@register(
    "/api/v2/incidents/{incident_id}",
    change={},
    bodies={
        "POST /acknowledge": {"acknowledged_by": "intruder@example.com"},
        "POST /resolve": {"resolved_by": "intruder@example.com"},
        "POST /reopen": {"reopened_by": "intruder@example.com"},
        "POST /comments": {"content": "Intruder was here"},
    },
)
async def incident(api: Api) -> str:
    monitor_url = await monitor(api)
    return await _created_url(
        api,
        "/api/v2/incidents",
        {
            "name": "Checkout down",
            "summary": "Reported by hand",
            "monitor_id": int(monitor_url.rsplit("/", 1)[1]),
            "metadata": {"region": ["eu"]},
        },
    )


@register("/api/v2/incidents/{incident_id}/comments/{comment_id}", change={"content": "Edited"})
async def incident_comment(api: Api) -> str:
    found = await incident(api)
    return await _created_url(api, f"{found}/comments", {"content": "Looking into it"})


@register(
    "/api/v3/incidents/{incident_id}",
    change={},
    bodies=OBJECTS["/api/v2/incidents/{incident_id}"].bodies,
)
async def incident_v3(api: Api) -> str:
    """The same incident through the hosted API's v3 prefix (same handlers)."""
    return (await incident(api)).replace("/api/v2/", "/api/v3/", 1)


@register("/api/v3/incidents/{incident_id}/comments/{comment_id}", change={"content": "Edited"})
async def incident_comment_v3(api: Api) -> str:
    return (await incident_comment(api)).replace("/api/v2/", "/api/v3/", 1)


async def _calendar(api: Api) -> str:
    return await _created_url(api, "/api/v2/on-calls", {"name": unique_name("rota")})


@register("/api/v2/on-calls/{id}", change={"name": "renamed"})
async def on_call_calendar(api: Api) -> str:
    return await _calendar(api)


@register(
    "/api/v2/on-calls/{id}/events/{event_id}",
    change={"ends_at": "2026-01-03T00:00:00Z"},
)
async def on_call_event(api: Api) -> str:
    """An event with nobody in it (the team has no members here)."""
    calendar = await _calendar(api)
    body = {"starts_at": "2026-01-01T00:00:00Z", "ends_at": "2026-01-02T00:00:00Z", "users": []}
    response = await api.post(f"{calendar}/events", body)
    assert response.status_code == 201, response.text
    return f"{calendar}/events/{response.json()['id']}"


@register(
    "/api/v2/locations/{location_id}",
    change={"name": "renamed-location", "offline_after": 600},
    bodies={"POST /probe-tokens": {"name": "agent"}},
)
async def location(api: Api) -> str:
    """A private location of the team (the operator's shared ones are made by the CLI)."""
    name = unique_name("loc").replace("_", "-").lower()
    return await _created_url(api, "/api/v2/locations", {"name": name, "region": "eu"})
