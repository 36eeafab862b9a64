"""A whole uptime setup driven through HTTP only, then read back and compared with what was built.

A status page with two sections, a monitor, a heartbeat and a manually tracked item; resources
moved between sections and positions (positions must stay contiguous); PATCHes and DELETEs;
a manual incident against the monitor, acknowledged and resolved.
"""

from __future__ import annotations

from typing import Any

from tests.factories.api import Api, data
from watchpost.clock import FrozenClock, isoformat_ms

MONITORS = "/api/v2/monitors"
HEARTBEATS = "/api/v2/heartbeats"
PAGES = "/api/v2/status-pages"
INCIDENTS = "/api/v2/incidents"


async def listing(api: Api, url: str) -> list[dict[str, Any]]:
    body = (await api.get(url, params={"per_page": 250})).json()
    assert body["pagination"]["next"] is None, body
    items: list[dict[str, Any]] = body["data"]
    return items


class Page:
    """One status page driven through its HTTP routes."""

    def __init__(self, api: Api, page_id: str) -> None:
        self.api = api
        self.url = f"{PAGES}/{page_id}"

    async def add_section(self, **body: Any) -> str:
        return str(data(await self.api.post(f"{self.url}/sections", body), 201)["id"])

    async def add(self, **body: Any) -> str:
        return str(data(await self.api.post(f"{self.url}/resources", body), 201)["id"])

    async def move(self, resource_id: str, **body: Any) -> dict[str, Any]:
        return data(await self.api.patch(f"{self.url}/resources/{resource_id}", body))

    async def sections(self) -> list[tuple[str, str]]:
        """(id, name) of every section in position order; positions must be 0..n-1."""
        items = await listing(self.api, f"{self.url}/sections")
        items.sort(key=lambda item: item["attributes"]["position"])
        assert [item["attributes"]["position"] for item in items] == list(range(len(items)))
        return [(item["id"], item["attributes"]["name"]) for item in items]

    async def layout(self) -> dict[str, list[str]]:
        """Section name → public names of its resources in position order (contiguous)."""
        names = dict(await self.sections())
        items = await listing(self.api, f"{self.url}/resources")
        found: dict[str, list[dict[str, Any]]] = {name: [] for name in names.values()}
        for item in items:
            attributes = item["attributes"]
            found[names[str(attributes["status_page_section_id"])]].append(attributes)
        result = {}
        for name, members in found.items():
            members.sort(key=lambda attributes: attributes["position"])
            positions = [attributes["position"] for attributes in members]
            assert positions == list(range(len(members))), (name, positions)
            result[name] = [attributes["public_name"] for attributes in members]
        return result


async def test_whole_setup_through_http(api: Api, clock: FrozenClock) -> None:
    # ------------------------------------------------------------ what is watched
    monitor = data(
        await api.post(
            MONITORS,
            {
                "url": "https://shop.example.com",
                "pronounceable_name": "Shop",
                "check_frequency": 60,
            },
        ),
        201,
    )
    monitor_id = monitor["id"]
    heartbeat = data(await api.post(HEARTBEATS, {"name": "Nightly backup", "period": 86400}), 201)
    heartbeat_id = heartbeat["id"]

    # ------------------------------------------------------------ the page
    page_data = data(
        await api.post(
            PAGES,
            {
                "subdomain": "acme-status",
                "company_name": "Acme",
                "timezone": "Europe/Prague",
                "history": 30,
            },
        ),
        201,
    )
    page_id = page_data["id"]
    page = Page(api, page_id)
    website = await page.add_section(name="Website")
    jobs = await page.add_section(name="Background jobs")
    assert await page.sections() == [(website, "Website"), (jobs, "Background jobs")]

    shop = await page.add(
        resource_type="Monitor", resource_id=monitor_id, status_page_section_id=int(website)
    )
    backup = await page.add(
        resource_type="Heartbeat",
        resource_id=heartbeat_id,
        status_page_section_id=int(jobs),
        public_name="Backups",
    )
    wifi = await page.add(
        public_name="Office Wi-Fi",
        status_page_section_id=int(website),
        position=0,
        explanation="Both floors",
    )
    # the monitor's default public name is its pronounceable name
    assert await page.layout() == {
        "Website": ["Office Wi-Fi", "Shop"],
        "Background jobs": ["Backups"],
    }

    # ------------------------------------------------------------ moving things around
    moved = await page.move(wifi, status_page_section_id=int(jobs), position=0)
    assert (moved["attributes"]["status_page_section_id"], moved["attributes"]["position"]) == (
        int(jobs),
        0,
    )
    assert await page.layout() == {
        "Website": ["Shop"],
        "Background jobs": ["Office Wi-Fi", "Backups"],
    }

    await page.move(backup, position=0)
    assert await page.layout() == {
        "Website": ["Shop"],
        "Background jobs": ["Backups", "Office Wi-Fi"],
    }

    payments = await page.add(
        public_name="Payments", status_page_section_id=int(website), position=0
    )
    assert await page.layout() == {
        "Website": ["Payments", "Shop"],
        "Background jobs": ["Backups", "Office Wi-Fi"],
    }
    # past the end appends
    await page.move(payments, position=99)
    assert (await page.layout())["Website"] == ["Shop", "Payments"]

    # sections move and rename too
    data(await api.patch(f"{page.url}/sections/{jobs}", {"position": 0, "name": "Jobs"}))
    assert await page.sections() == [(jobs, "Jobs"), (website, "Website")]

    # a third section, used and emptied, then deleted
    spare = await page.add_section(name="Spare", position=1)
    assert await page.sections() == [(jobs, "Jobs"), (spare, "Spare"), (website, "Website")]
    await page.move(shop, status_page_section_id=int(spare))
    assert await page.layout() == {
        "Jobs": ["Backups", "Office Wi-Fi"],
        "Spare": ["Shop"],
        "Website": ["Payments"],
    }
    await page.move(shop, status_page_section_id=int(website), position=0)
    # a section goes with what it still holds (terraform destroy may delete it first)
    doomed = await page.add(public_name="Doomed", status_page_section_id=int(spare))
    assert (await api.delete(f"{page.url}/sections/{spare}")).status_code == 204
    assert (await api.get(f"{page.url}/resources/{doomed}")).status_code == 404
    assert await page.sections() == [(jobs, "Jobs"), (website, "Website")]

    # delete from the middle of a section keeps the rest contiguous
    extra = await page.add(
        public_name="Status API", status_page_section_id=int(website), position=1
    )
    assert (await page.layout())["Website"] == ["Shop", "Status API", "Payments"]
    assert (await api.delete(f"{page.url}/resources/{extra}")).status_code == 204
    assert (await api.get(f"{page.url}/resources/{extra}")).status_code == 404
    assert await page.layout() == {
        "Jobs": ["Backups", "Office Wi-Fi"],
        "Website": ["Shop", "Payments"],
    }

    # ------------------------------------------------------------ changes
    clock.advance(3600)
    page_data = data(
        await api.patch(page.url, {"announcement": "Maintenance on Sunday", "theme": "dark"})
    )
    monitor = data(await api.patch(f"{MONITORS}/{monitor_id}", {"check_frequency": 180}))
    heartbeat = data(await api.patch(f"{HEARTBEATS}/{heartbeat_id}", {"name": "Nightly backups"}))
    wifi_now = await page.move(wifi, public_name="Office network", widget_type="plain")
    assert (wifi_now["attributes"]["public_name"], wifi_now["attributes"]["history"]) == (
        "Office network",
        False,
    )

    # ------------------------------------------------------------ a manual incident
    reported = data(
        await api.post(
            INCIDENTS,
            {
                "name": "Shop checkout failing",
                "summary": "Payments time out for some customers",
                "monitor_id": int(monitor_id),
                "requester_email": "ops@acme.example",
                "metadata": {"component": ["checkout"]},
            },
        ),
        201,
    )
    incident_url = f"{INCIDENTS}/{reported['id']}"
    started = isoformat_ms(clock.now())
    assert reported["attributes"]["status"] == "started"
    assert reported["attributes"]["manual"] is True
    clock.advance(300)
    acknowledged = isoformat_ms(clock.now())
    data(await api.post(f"{incident_url}/acknowledge", {"acknowledged_by": "ann@acme.example"}))
    clock.advance(900)
    resolved = isoformat_ms(clock.now())
    incident = data(await api.post(f"{incident_url}/resolve", {"resolved_by": "ann@acme.example"}))
    expected = {
        "name": "Shop checkout failing",
        "cause": "Payments time out for some customers",
        "status": "resolved",
        "started_at": started,
        "acknowledged_at": acknowledged,
        "acknowledged_by": "ann@acme.example",
        "resolved_at": resolved,
        "resolved_by": "ann@acme.example",
        "monitor_id": int(monitor_id),
        "heartbeat_id": None,
        "manual": True,
        "metadata": {"component": ["checkout"]},
    }
    assert {key: incident["attributes"][key] for key in expected} == expected
    timeline = [item["attributes"] for item in await listing(api, f"{incident_url}/timeline")]
    assert [(item["kind"], item["at"], item["by"]) for item in timeline] == [
        ("started", started, "ops@acme.example"),
        ("acknowledged", acknowledged, "ann@acme.example"),
        ("resolved", resolved, "ann@acme.example"),
    ]
    assert (await api.post(f"{incident_url}/resolve")).status_code == 409

    # ------------------------------------------------------------ read everything back
    assert data(await api.get(f"{MONITORS}/{monitor_id}")) == monitor
    assert monitor["attributes"]["check_frequency"] == 180
    assert data(await api.get(f"{HEARTBEATS}/{heartbeat_id}")) == heartbeat
    assert heartbeat["attributes"]["name"] == "Nightly backups"
    assert [item["id"] for item in await listing(api, MONITORS)] == [monitor_id]
    assert [item["id"] for item in await listing(api, HEARTBEATS)] == [heartbeat_id]

    assert data(await api.get(page.url)) == page_data
    page_attributes = page_data["attributes"]
    assert {key: page_attributes[key] for key in ("subdomain", "company_name", "timezone")} == {
        "subdomain": "acme-status",
        "company_name": "Acme",
        "timezone": "Europe/Prague",
    }
    assert (page_attributes["history"], page_attributes["announcement"]) == (
        30,
        "Maintenance on Sunday",
    )
    assert page_attributes["theme"] == "dark"
    assert [item["id"] for item in await listing(api, PAGES)] == [page_id]

    sections = await listing(api, f"{page.url}/sections")
    for item in sections:
        assert data(await api.get(f"{page.url}/sections/{item['id']}")) == item
        assert item["attributes"]["status_page_id"] == int(page_id)
    assert await page.sections() == [(jobs, "Jobs"), (website, "Website")]

    resources = {item["id"]: item for item in await listing(api, f"{page.url}/resources")}
    for resource_id, item in resources.items():
        assert data(await api.get(f"{page.url}/resources/{resource_id}")) == item
    built = {
        shop: ("Monitor", int(monitor_id), website, 0, "Shop"),
        payments: ("ManuallyTrackedItem", None, website, 1, "Payments"),
        backup: ("Heartbeat", int(heartbeat_id), jobs, 0, "Backups"),
        wifi: ("ManuallyTrackedItem", None, jobs, 1, "Office network"),
    }
    read_back = {
        resource_id: (
            item["attributes"]["resource_type"],
            item["attributes"]["resource_id"],
            str(item["attributes"]["status_page_section_id"]),
            item["attributes"]["position"],
            item["attributes"]["public_name"],
        )
        for resource_id, item in resources.items()
    }
    assert read_back == built
    assert resources[wifi]["attributes"]["explanation"] == "Both floors"
    assert resources[wifi]["attributes"]["widget_type"] == "plain"
    assert resources[shop]["attributes"]["widget_type"] == "history"

    assert [item["id"] for item in await listing(api, INCIDENTS)] == [reported["id"]]
    listed = (
        await api.get(INCIDENTS, params={"monitor_id": monitor_id, "resolved": "true"})
    ).json()
    assert [item["attributes"] for item in listed["data"]] == [incident["attributes"]]
    assert data(await api.get(incident_url)) == incident

    # ------------------------------------------------------------ tearing down
    assert (await api.delete(f"{page.url}/resources/{shop}")).status_code == 204
    assert await page.layout() == {"Jobs": ["Backups", "Office network"], "Website": ["Payments"]}
    assert (await api.delete(page.url)).status_code == 204
    for gone in (page.url, f"{page.url}/sections/{jobs}", f"{page.url}/resources/{backup}"):
        assert (await api.get(gone)).status_code == 404, gone
    # what the page showed lives on; the incident keeps its history
    assert data(await api.get(f"{MONITORS}/{monitor_id}")) == monitor
    assert data(await api.get(f"{HEARTBEATS}/{heartbeat_id}")) == heartbeat
    assert (await api.delete(f"{MONITORS}/{monitor_id}")).status_code == 204
    kept = data(await api.get(incident_url))["attributes"]
    assert (kept["monitor_id"], kept["status"]) == (None, "resolved")
