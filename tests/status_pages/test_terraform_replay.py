"""The requests the hosted API's Terraform provider sends for status pages, their groups,
sections and resources, replayed as its Go code builds them (resource_status_page*.go): the
configurations of its examples and acceptance tests, created, read, updated, read again and
destroyed in its order. Every attribute a configuration sets must read back as sent, or
Terraform would fail the apply ("inconsistent result") or plan a change forever.

How the provider builds a body: each attribute set in the configuration goes under its JSON
tag (`omitempty` pointers: unset ones are left out, zero values that were set are sent);
sections and resources always carry `fixed_position: true`; an update sends the changed
attributes only (plus `custom_domain: ""` whenever the configuration says "", every
navigation link, and `fixed_position`). A read copies each attribute of the response back
by the same JSON tags, a missing or null one becoming the zero value.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from tests.factories.api import TEST_PASSWORD, Api, data, errors
from tests.factories.delivery import create_member

PAGES = "/api/v2/status-pages"
GROUPS = "/api/v2/status-page-groups"

# statusPageRef: (state key, JSON tag, zero value), in the provider's order.
PAGE_REF: list[tuple[str, str, Any]] = [
    ("history", "history", 0),
    ("company_name", "company_name", ""),
    ("company_url", "company_url", ""),
    ("contact_url", "contact_url", ""),
    ("logo_url", "logo_remote_url", ""),
    ("dark_logo_url", "dark_logo_remote_url", ""),
    ("whitelabeled", "whitelabeled", False),
    ("timezone", "timezone", ""),
    ("subdomain", "subdomain", ""),
    ("custom_domain", "custom_domain", ""),
    ("min_incident_length", "min_incident_length", 0),
    ("subscribable", "subscribable", False),
    ("published", "published", False),
    ("hide_from_search_engines", "hide_from_search_engines", False),
    ("custom_css", "custom_css", ""),
    ("custom_javascript", "custom_javascript", ""),
    ("google_analytics_id", "google_analytics_id", ""),
    ("announcement", "announcement", ""),
    ("announcement_embed_visible", "announcement_embed_visible", False),
    ("announcement_embed_link", "announcement_embed_link", ""),
    ("announcement_embed_css", "announcement_embed_css", ""),
    ("password_enabled", "password_enabled", False),
    ("password", "password", ""),
    ("require_sso", "require_sso", False),
    ("aggregate_state", "aggregate_state", ""),
    ("created_at", "created_at", ""),
    ("updated_at", "updated_at", ""),
    ("design", "design", ""),
    ("theme", "theme", ""),
    ("layout", "layout", ""),
    ("automatic_reports", "automatic_reports", False),
    ("status_page_group_id", "status_page_group_id", 0),
    ("navigation_links", "navigation_links", []),
    ("ip_allowlist", "ip_allowlist", []),
]
SECTION_REF: list[tuple[str, str, Any]] = [("name", "name", ""), ("position", "position", 0)]
RESOURCE_REF: list[tuple[str, str, Any]] = [
    ("status_page_section_id", "status_page_section_id", 0),
    ("resource_id", "resource_id", 0),
    ("resource_type", "resource_type", ""),
    ("public_name", "public_name", ""),
    ("explanation", "explanation", ""),
    ("history", "history", False),
    ("position", "position", 0),
    ("widget_type", "widget_type", ""),
    ("mark_as_down_for", "mark_as_down_for", ""),
    ("mark_as_degraded_for", "mark_as_degraded_for", ""),
]
RULES = ("mark_as_down_metadata_rule", "mark_as_degraded_metadata_rule")
GROUP_REF: list[tuple[str, str, Any]] = [
    ("name", "name", ""),
    ("sort_index", "sort_index", 0),
    ("created_at", "created_at", ""),
    ("updated_at", "updated_at", ""),
]


def body_of(
    ref: list[tuple[str, str, Any]], config: dict[str, Any], keys: set[str]
) -> dict[str, Any]:
    """What `load` puts in the request for the given keys of the configuration."""
    return {tag: config[key] for key, tag, _ in ref if key in keys and key in config}


def read_back(ref: list[tuple[str, str, Any]], attributes: dict[str, Any]) -> dict[str, Any]:
    """What a Read leaves in the state: each attribute by its JSON tag, null as zero."""
    state = {}
    for key, tag, zero in ref:
        if key == "password":  # never copied back
            continue
        value = attributes.get(tag)
        state[key] = zero if value is None else value
    return state


def assert_as_sent(config: dict[str, Any], state: dict[str, Any], what: str) -> None:
    for key, sent in config.items():
        if key in ("password", *RULES):
            continue
        assert state[key] == sent, (what, key, sent, state[key])


# The provider decodes every PATCH response into its policy struct (policyHTTPResponse):
# an attribute of one of these names with another JSON type would fail the update.
POLICY_TYPES: dict[str, type | tuple[type, ...]] = {
    "id": int,
    "name": str,
    "repeat_count": int,
    "repeat_delay": int,
    "fallback_policy_id": int,
    "incident_token": str,
    "steps": list,
    "team_name": str,
    "policy_group_id": int,
}


def patched(response: Any) -> dict[str, Any]:
    """The PATCH response, checked to decode as the provider decodes it."""
    out = data(response)
    assert isinstance(out["id"], str)
    for name, kind in POLICY_TYPES.items():
        value = out["attributes"].get(name)
        assert value is None or isinstance(value, kind), (name, value)
    return out


def rule_body(rule: dict[str, Any]) -> dict[str, Any]:
    """loadStatusPageResourceMetadataRule: `type` defaults to String and is always sent;
    item_id goes as a JSON number (json.Number)."""
    values = []
    for item in rule["metadata_value"]:
        value: dict[str, Any] = {"type": item.get("type", "String")}
        for name in ("value", "email", "name"):
            if item.get(name):
                value[name] = item[name]
        if item.get("item_id"):
            value["item_id"] = int(item["item_id"])
        values.append(value)
    return {"key": rule["key"], "values": values}


def rule_state(rule: dict[str, Any] | None, config_rule: dict[str, Any] | None) -> Any:
    """statusPageResourceMetadataRuleCopyAttrs: type and value always; item_id, email and
    name only where configured, item_id only when the response has it as a number."""
    if rule is None:
        return []
    values = []
    for index, item in enumerate(rule["values"]):
        configured = (config_rule or {}).get("metadata_value", [])
        wanted = configured[index] if index < len(configured) else {}
        value: dict[str, Any] = {"type": item["type"]}
        if isinstance(item.get("value"), str):
            value["value"] = item["value"]
        if wanted.get("item_id") and isinstance(item.get("item_id"), int | float):
            value["item_id"] = str(int(item["item_id"]))
        for name in ("email", "name"):
            if wanted.get(name) and isinstance(item.get(name), str):
                value[name] = item[name]
        values.append(value)
    return [{"key": rule["key"], "metadata_value": values}]


def configured_rule(rule: dict[str, Any]) -> list[dict[str, Any]]:
    values = [{"type": "String", **item} for item in rule["metadata_value"]]
    return [{"key": rule["key"], "metadata_value": values}]


class Provider:
    """The provider's CRUD functions for the four resources, against the app."""

    def __init__(self, api: Api) -> None:
        self.api = api

    # ---------------------------------------------------------------- groups

    async def create_group(self, config: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        body = body_of(GROUP_REF, config, set(config))
        out = data(await self.api.post(GROUPS, body), 201)
        state = read_back(GROUP_REF, out["attributes"])
        assert_as_sent(config, state, "group create")
        return out["id"], state

    async def read_group(self, gid: str, config: dict[str, Any]) -> dict[str, Any]:
        state = read_back(GROUP_REF, data(await self.api.get(f"{GROUPS}/{gid}"))["attributes"])
        assert_as_sent(config, state, "group read")
        return state

    async def update_group(self, gid: str, state: dict[str, Any], config: dict[str, Any]) -> None:
        changed = {k for k in config if state.get(k) != config[k]}
        patched(await self.api.patch(f"{GROUPS}/{gid}", body_of(GROUP_REF, config, changed)))

    # ----------------------------------------------------------------- pages

    async def create_page(self, config: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        body = body_of(PAGE_REF, config, set(config))
        out = data(await self.api.post(PAGES, body), 201)
        state = read_back(PAGE_REF, out["attributes"])
        assert_as_sent(config, state, "page create")
        return out["id"], state

    async def read_page(self, pid: str, config: dict[str, Any]) -> dict[str, Any]:
        attributes = data(await self.api.get(f"{PAGES}/{pid}"))["attributes"]
        assert "password" not in attributes
        state = read_back(PAGE_REF, attributes)
        assert_as_sent(config, state, "page read")
        # Optional lists not in the configuration must read back empty (no diff either)
        for key in ("navigation_links", "ip_allowlist"):
            if key not in config:
                assert state[key] == [], (key, state[key])
        return state

    async def update_page(
        self, pid: str, state: dict[str, Any], config: dict[str, Any], password: str | None
    ) -> None:
        changed = {k for k in config if k != "password" and state.get(k) != config[k]}
        if config.get("password") not in (None, password):
            changed.add("password")
        if config.get("navigation_links"):
            changed.add("navigation_links")
        body = body_of(PAGE_REF, config, changed)
        if config.get("custom_domain") == "":
            body["custom_domain"] = ""
        patched(await self.api.patch(f"{PAGES}/{pid}", body))

    # -------------------------------------------------------------- sections

    def _sections(self, pid: str) -> str:
        return f"{PAGES}/{pid}/sections"

    async def create_section(self, pid: str, config: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        body = {**body_of(SECTION_REF, config, set(config)), "fixed_position": True}
        out = data(await self.api.post(self._sections(pid), body), 201)
        state = read_back(SECTION_REF, out["attributes"])
        assert_as_sent(config, state, "section create")
        return out["id"], state

    async def read_section(self, pid: str, sid: str, config: dict[str, Any]) -> dict[str, Any]:
        out = data(await self.api.get(f"{self._sections(pid)}/{sid}"))
        state = read_back(SECTION_REF, out["attributes"])
        assert_as_sent(config, state, "section read")
        return state

    async def update_section(
        self, pid: str, sid: str, state: dict[str, Any], config: dict[str, Any]
    ) -> None:
        changed = {k for k in config if state.get(k) != config[k]}
        body = {**body_of(SECTION_REF, config, changed), "fixed_position": True}
        patched(await self.api.patch(f"{self._sections(pid)}/{sid}", body))

    async def delete_section(self, pid: str, sid: str) -> None:
        assert (await self.api.delete(f"{self._sections(pid)}/{sid}")).status_code in (204, 404)

    # ------------------------------------------------------------- resources

    def _resources(self, pid: str) -> str:
        return f"{PAGES}/{pid}/resources"

    def _resource_state(self, attributes: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
        state = read_back(RESOURCE_REF, attributes)
        for key in RULES:
            state[key] = rule_state(attributes.get(key), config.get(key))
            if state["mark_as_" + key.split("_")[2] + "_for"] != "incident_matching_metadata":
                state[key] = []
        return state

    def _check_resource(self, config: dict[str, Any], state: dict[str, Any], what: str) -> None:
        assert_as_sent(config, state, what)
        for key in RULES:
            expected = configured_rule(config[key]) if key in config else []
            assert state[key] == expected, (what, key, expected, state[key])

    def _resource_body(self, config: dict[str, Any], keys: set[str]) -> dict[str, Any]:
        body = body_of(RESOURCE_REF, config, keys)
        for key in RULES:
            if key in keys and key in config:
                body[key] = rule_body(config[key])
        return {**body, "fixed_position": True}

    async def create_resource(self, pid: str, config: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        body = self._resource_body(config, set(config))
        out = data(await self.api.post(self._resources(pid), body), 201)
        state = self._resource_state(out["attributes"], config)
        self._check_resource(config, state, "resource create")
        return out["id"], state

    async def read_resource(self, pid: str, rid: str, config: dict[str, Any]) -> dict[str, Any]:
        out = data(await self.api.get(f"{self._resources(pid)}/{rid}"))
        state = self._resource_state(out["attributes"], config)
        self._check_resource(config, state, "resource read")
        return state

    async def update_resource(
        self, pid: str, rid: str, state: dict[str, Any], config: dict[str, Any]
    ) -> dict[str, Any]:
        changed = {k for k in config if k not in RULES and state.get(k) != config[k]}
        for key in RULES:
            if state[key] != (configured_rule(config[key]) if key in config else []):
                changed.add(key)
        if changed & {"resource_id", "resource_type"}:  # sent together
            changed |= {"resource_id", "resource_type"}
        body = self._resource_body(config, changed)
        for key in RULES:  # a removed rule: the provider sends nothing for it (nil)
            if key in changed and key not in config:
                body.pop(key, None)
        patched(await self.api.patch(f"{self._resources(pid)}/{rid}", body))
        return body

    async def delete_resource(self, pid: str, rid: str) -> None:
        assert (await self.api.delete(f"{self._resources(pid)}/{rid}")).status_code in (204, 404)


# ------------------------------------------------------------------------------ tests


async def test_examples_status_pages_and_groups(api: Api) -> None:
    tf = Provider(api)
    group_cfg = {"name": "Status pages from Terraform"}
    secondary_cfg = {"name": "Secondary status pages from Terraform", "sort_index": 2}
    gid, _ = await tf.create_group(group_cfg)
    gid2, _ = await tf.create_group(secondary_cfg)
    await tf.read_group(gid, group_cfg)
    await tf.read_group(gid2, secondary_cfg)

    simple = {
        "company_name": "Example, Inc",
        "company_url": "https://example.com",
        "timezone": "UTC",
        "subdomain": "tf-status-simple-0a1b2c3d",
    }
    this = {
        "company_name": "Example, Inc",
        "company_url": "https://example.com",
        "contact_url": "mailto:support@example.com",
        "timezone": "Eastern Time (US & Canada)",
        "subdomain": "tf-status-0a1b2c3d",
        "subscribable": True,
        "published": True,
        "custom_domain": "",
        "status_page_group_id": int(gid),
        "history": 90,
        "min_incident_length": 300,
        "automatic_reports": True,
        "hide_from_search_engines": True,
    }
    logo = "https://raw.githubusercontent.com/BetterStackHQ/terraform-provider-better-uptime/"
    styled = {
        "company_name": "Example, Inc",
        "company_url": "https://example.com",
        "timezone": "UTC",
        "subdomain": "tf-status-styled-0a1b2c3d",
        "design": "v2",
        "theme": "light",
        "layout": "vertical",
        "logo_url": logo + "logo_black_text.png",
        "dark_logo_url": logo + "logo_white_text.png",
        "announcement": "All systems operational.",
        "announcement_embed_visible": True,
        "announcement_embed_link": "https://example.com/status",
        "announcement_embed_css": ".announcement { font-weight: bold; }",
        "custom_css": ".page { --brand: #0f172a; }",
        "google_analytics_id": "G-XXXXXXXXXX",
        "whitelabeled": True,
        "navigation_links": [
            {"text": "Home", "href": "https://example.com"},
            {"text": "Incidents", "href": "/incidents"},
        ],
    }
    secure = {
        "company_name": "Example, Inc",
        "company_url": "https://example.com",
        "timezone": "UTC",
        "subdomain": "tf-status-secure-0a1b2c3d",
        "ip_allowlist": ["# Office network", "192.168.1.0/24", "2001:0db8:85a3::/64"],
        "password_enabled": True,
        "password": TEST_PASSWORD,
    }
    ids = {}
    for name, config in (
        ("simple", simple),
        ("this", this),
        ("styled", styled),
        ("secure", secure),
    ):
        ids[name], _ = await tf.create_page(config)
    states = {
        name: await tf.read_page(ids[name], cfg)
        for name, cfg in (
            ("simple", simple),
            ("this", this),
            ("styled", styled),
            ("secure", secure),
        )
    }
    # the provider's first read of a page with custom_domain = "": null reads as ""
    assert states["this"]["custom_domain"] == ""

    # update: move "this" to the other group, restyle, change the allowlist and password
    this2 = {**this, "status_page_group_id": int(gid2), "custom_domain": "status.example.com"}
    styled2 = {
        **styled,
        "theme": "dark",
        "layout": "horizontal",
        "logo_url": logo + "other.png",
        "navigation_links": [{"text": "Maintenance", "href": "/maintenance"}],
        "custom_javascript": "console.log('hi')",
    }
    secure2 = {**secure, "ip_allowlist": ["10.0.0.1", "# VPN", "172.16.0.0/16"], "password": "n3w"}
    await tf.update_page(ids["this"], states["this"], this2, None)
    await tf.update_page(ids["styled"], states["styled"], styled2, None)
    await tf.update_page(ids["secure"], states["secure"], secure2, TEST_PASSWORD)
    this_state = await tf.read_page(ids["this"], this2)
    await tf.read_page(ids["styled"], styled2)
    await tf.read_page(ids["secure"], secure2)
    # and back: custom_domain = "" removes the domain
    await tf.update_page(ids["this"], this_state, this, None)
    assert (await tf.read_page(ids["this"], this))["custom_domain"] == ""

    # destroy: pages first (they depend on the groups), then the groups
    for name in ("secure", "styled", "this", "simple"):
        assert (await api.delete(f"{PAGES}/{ids[name]}")).status_code == 204
        assert (await api.get(f"{PAGES}/{ids[name]}")).status_code == 404
    for group in (gid2, gid):
        assert (await api.delete(f"{GROUPS}/{group}")).status_code == 204
        assert (await api.get(f"{GROUPS}/{group}")).status_code == 404


async def test_acceptance_status_page_steps(api: Api) -> None:
    """resource_status_page_test.go's steps, in order, each followed by a refresh."""
    tf = Provider(api)
    base = {
        "company_name": "Example, Inc",
        "company_url": "https://example.com",
        "timezone": "UTC",
        "subdomain": "example",
        "password": "secret123",
        "navigation_links": [
            {"text": "Example", "href": "https://example.com"},
            {"text": "Status", "href": "/status"},
        ],
    }
    pid, _ = await tf.create_page(base)
    state = await tf.read_page(pid, base)
    links2 = [
        {"text": "Example2", "href": "https://example.com/test"},
        {"text": "Status", "href": "/status"},
    ]
    step2 = {
        **base,
        "timezone": "America/Los_Angeles",
        "password": "secret1234",
        "navigation_links": links2,
    }
    steps: list[tuple[dict[str, Any], str | None]] = [
        (step2, "secret123"),
        (
            {
                **step2,
                "ip_allowlist": ["192.168.1.0/24", "10.0.0.1", "# Office network", "172.16.0.0/16"],
            },
            "secret1234",
        ),
        ({**step2, "ip_allowlist": ["1.1.1.1", "2.2.2.2"]}, "secret1234"),
        ({**step2, "ip_allowlist": []}, "secret1234"),
    ]
    no_password = {k: v for k, v in step2.items() if k != "password"}
    steps += [
        ({**no_password, "require_sso": True}, "secret1234"),
        ({**no_password, "require_sso": False}, "secret1234"),
        ({**no_password, "custom_domain": "status.example.com"}, "secret1234"),
        ({**no_password, "custom_domain": ""}, "secret1234"),
    ]
    for config, password in steps:
        await tf.update_page(pid, state, config, password)
        state = await tf.read_page(pid, config)
    assert state["custom_domain"] == ""
    assert state["ip_allowlist"] == [] and state["require_sso"] is False


async def test_examples_sections_and_resources(app: FastAPI, api: Api) -> None:
    tf = Provider(api)
    await create_member(app, api.team_name, "petr@betterstack.com", "Petr")
    monitor = data(await api.post("/api/v2/monitors", {"url": "https://example.com"}), 201)
    other_monitor = data(await api.post("/api/v2/monitors", {"url": "https://example.org"}), 201)
    group = data(await api.post("/api/v2/monitor-groups", {"name": "all"}), 201)
    heartbeat = data(await api.post("/api/v2/heartbeats", {"name": "nightly"}), 201)
    policies = [
        data(await api.post("/api/v3/policies", {"name": name}), 201) for name in ("P1", "P2")
    ]
    pid, _ = await tf.create_page({"company_name": "Example, Inc", "subdomain": "tf-sections"})

    # Sections with explicit positions, created in an order Terraform may well choose.
    section_cfg = {
        "monitors": {"name": "Our monitors", "position": 0},
        "heartbeats": {"name": "Our heartbeats", "position": 1},
        "manual": {"name": "Manually tracked items", "position": 2},
    }
    sections: dict[str, str] = {}
    for name in ("manual", "monitors", "heartbeats"):
        sections[name], _ = await tf.create_section(pid, section_cfg[name])
    section_states = {
        name: await tf.read_section(pid, sections[name], cfg) for name, cfg in section_cfg.items()
    }

    def sid(name: str) -> int:
        return int(sections[name])

    resource_cfg: dict[str, dict[str, Any]] = {
        "monitor_status": {
            "status_page_section_id": sid("monitors"),
            "resource_id": int(monitor["id"]),
            "resource_type": "Monitor",
            "public_name": "example.com site",
            "widget_type": "response_times",
        },
        "heartbeat": {
            "status_page_section_id": sid("heartbeats"),
            "resource_id": int(heartbeat["id"]),
            "resource_type": "Heartbeat",
            "public_name": "example.com site (heartbeat)",
            "explanation": "Public API used by customer integrations",
            "position": 2,
        },
        "monitor_group": {
            "status_page_section_id": sid("monitors"),
            "resource_id": int(group["id"]),
            "resource_type": "MonitorGroup",
            "public_name": "All monitors",
        },
        "manually_tracked_item": {
            "status_page_section_id": sid("manual"),
            "resource_type": "ManuallyTrackedItem",
            "public_name": "example.com manual item",
        },
        # The example's EmailIntegration resource: the same rules on a manually tracked item
        # (e-mail integrations on pages: tests/incoming).
        "rules": {
            "status_page_section_id": sid("monitors"),
            "resource_type": "ManuallyTrackedItem",
            "public_name": "General status",
            "mark_as_down_for": "incident_matching_metadata",
            "mark_as_down_metadata_rule": {
                "key": "Severity",
                "metadata_value": [{"value": "high"}, {"value": "urgent"}],
            },
            "mark_as_degraded_for": "incident_matching_metadata",
            "mark_as_degraded_metadata_rule": {
                "key": "Assigned User",
                "metadata_value": [{"type": "User", "email": "petr@betterstack.com"}],
            },
        },
        "down_on_any_incident": {
            "status_page_section_id": sid("manual"),
            "resource_type": "ManuallyTrackedItem",
            "public_name": "Down on any incident",
            "mark_as_down_for": "any_incident",
        },
        # resource_status_page_resource_test.go: no section (the page's first one)
        "acceptance": {
            "resource_id": int(monitor["id"]),
            "resource_type": "Monitor",
            "public_name": "example",
        },
    }
    rids: dict[str, str] = {}
    for name, config in resource_cfg.items():
        rids[name], _ = await tf.create_resource(pid, config)
    states = {
        name: await tf.read_resource(pid, rids[name], cfg) for name, cfg in resource_cfg.items()
    }
    messages, fields = errors(
        await api.post(
            f"{PAGES}/{pid}/resources",
            {"resource_type": "LogsChart", "resource_id": 1, "fixed_position": True},
        )
    )
    assert fields == ["resource_type"] and "not supported" in messages[0]

    # The acceptance test's updates: another monitor (resource_id and type sent together),
    # then Policy rules by item_id, then the rules removed.
    acceptance = resource_cfg["acceptance"]
    step2 = {**acceptance, "resource_id": int(other_monitor["id"])}
    body = await tf.update_resource(pid, rids["acceptance"], states["acceptance"], step2)
    assert body == {
        "resource_id": int(other_monitor["id"]),
        "resource_type": "Monitor",
        "fixed_position": True,
    }
    state = await tf.read_resource(pid, rids["acceptance"], step2)
    step3 = {
        **step2,
        "mark_as_down_for": "incident_matching_metadata",
        "mark_as_down_metadata_rule": {
            "key": "Default escalation policy",
            "metadata_value": [
                {"type": "Policy", "item_id": policies[0]["id"]},
                {"type": "Policy", "item_id": policies[1]["id"]},
            ],
        },
        "mark_as_degraded_for": "any_incident",
    }
    await tf.update_resource(pid, rids["acceptance"], state, step3)
    state = await tf.read_resource(pid, rids["acceptance"], step3)
    step5 = {**step2, "mark_as_down_for": "any_incident", "mark_as_degraded_for": "no_incident"}
    await tf.update_resource(pid, rids["acceptance"], state, step5)
    await tf.read_resource(pid, rids["acceptance"], step5)
    manual = resource_cfg["manually_tracked_item"]
    renamed = {**manual, "public_name": "Updated Manual Item"}
    body = await tf.update_resource(
        pid, rids["manually_tracked_item"], states["manually_tracked_item"], renamed
    )
    assert body == {"public_name": "Updated Manual Item", "fixed_position": True}
    await tf.read_resource(pid, rids["manually_tracked_item"], renamed)

    # Reordering through fixed positions: swap two sections (either PATCH may go first),
    # then move the heartbeat to the top of its section.
    swapped = {
        "monitors": {**section_cfg["monitors"], "position": 1},
        "heartbeats": {**section_cfg["heartbeats"], "position": 0},
    }
    for name in ("monitors", "heartbeats"):
        await tf.update_section(pid, sections[name], section_states[name], swapped[name])
    for name, config in swapped.items():
        await tf.read_section(pid, sections[name], config)
    await tf.read_section(pid, sections["manual"], section_cfg["manual"])
    top = {**resource_cfg["heartbeat"], "position": 0}
    await tf.update_resource(pid, rids["heartbeat"], states["heartbeat"], top)
    await tf.read_resource(pid, rids["heartbeat"], top)
    # a new section inserted where a fixed one is pushes that one down
    inserted, _ = await tf.create_section(pid, {"name": "Inserted", "position": 0})
    assert (await tf.read_section(pid, sections["heartbeats"], {}))["position"] == 1

    # destroy: sections and resources have no dependency on each other when a resource
    # does not reference its section (the acceptance one): a section may go first.
    first = (await tf.read_resource(pid, rids["acceptance"], {}))["status_page_section_id"]
    for section_id in {str(first), *sections.values(), inserted}:
        await tf.delete_section(pid, section_id)
    for rid in rids.values():
        await tf.delete_resource(pid, rid)  # 404 for those gone with their section
    assert (await api.get(f"{PAGES}/{pid}/resources")).json()["data"] == []
    assert (await api.delete(f"{PAGES}/{pid}")).status_code == 204


async def test_acceptance_status_page_group_steps(api: Api) -> None:
    tf = Provider(api)
    config: dict[str, Any] = {"name": "example", "sort_index": 1}
    gid, _ = await tf.create_group(config)
    state = await tf.read_group(gid, config)
    for step in ({"name": "example", "sort_index": 0}, {"name": "example2", "sort_index": 0}):
        await tf.update_group(gid, state, step)
        state = await tf.read_group(gid, step)
    # team_name is sent on create when configured: it must be the token's team
    named = {"name": "named", "team_name": api.team_name}
    out = data(await api.post(GROUPS, named), 201)
    assert out["type"] == "status_page_group"
    assert out["attributes"]["team_name"] == api.team_name
