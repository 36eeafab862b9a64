"""SVG badges of a page's state and of one resource's status."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import httpx

from tests.factories.api import Api
from tests.public_machine.helpers import hit, new_page, new_report, new_resource, parse_xml
from watchpost.public_pages import badges

SVG = "{http://www.w3.org/2000/svg}"


async def _badge(client: httpx.AsyncClient, path: str) -> tuple[str, str, ET.Element]:
    """(title, message colour, the svg) of the badge at path."""
    response = await client.get(path)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/svg+xml; charset=utf-8"
    assert b"href" not in response.content  # nothing loaded from elsewhere
    root = parse_xml(response.content)
    assert root.tag == f"{SVG}svg"
    rects = root.findall(f"{SVG}g/{SVG}rect")
    return root.findtext(f"{SVG}title") or "", rects[1].get("fill") or "", root


async def test_page_badge_follows_the_state(api: Api, client: httpx.AsyncClient) -> None:
    page = await new_page(api)
    one = await new_resource(api, page, "One")
    two = await new_resource(api, page, "Two")
    title, colour, root = await _badge(client, "/status/acme/badge.svg")
    assert (title, colour) == ("Acme Inc: operational", badges.GREEN)
    assert root.get("aria-label") == "Acme Inc: operational"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert texts == ["Acme Inc", "Acme Inc", "operational", "operational"]

    await new_report(api, page, affected_resources=[hit(one, "downtime")])
    assert (await _badge(client, "/status/acme/badge.svg"))[:2] == (
        "Acme Inc: partial outage",
        badges.ORANGE,
    )
    await new_report(api, page, affected_resources=[hit(two, "downtime")])
    assert (await _badge(client, "/status/acme/badge.svg"))[:2] == (
        "Acme Inc: major outage",
        badges.RED,
    )


async def test_resource_badge(api: Api, client: httpx.AsyncClient) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page, "Search & <API>")
    title, colour, _ = await _badge(client, f"/status/acme/resources/{rid}/badge.svg")
    assert (title, colour) == ("Search & <API>: operational", badges.GREEN)
    await new_report(api, page, affected_resources=[hit(rid, "degraded")])
    title, colour, _ = await _badge(client, f"/status/acme/resources/{rid}/badge.svg")
    assert (title, colour) == ("Search & <API>: degraded", badges.YELLOW)
    await new_report(api, page, affected_resources=[hit(rid, "downtime")])
    title, colour, _ = await _badge(client, f"/status/acme/resources/{rid}/badge.svg")
    assert (title, colour) == ("Search & <API>: down", badges.RED)


async def test_resource_of_another_page_or_no_resource_is_404(
    api: Api, client: httpx.AsyncClient
) -> None:
    await new_page(api)
    other = await new_page(api, "other")
    foreign = await new_resource(api, other, "Elsewhere")
    for rid in (foreign, "999999", "abc", "0", "1e3", "99999999999999999999999"):
        response = await client.get(f"/status/acme/resources/{rid}/badge.svg")
        assert response.status_code == 404, rid
        assert response.headers["content-type"].startswith("text/html")


def test_badge_widths_follow_the_text() -> None:
    short = parse_xml(badges.badge("a", "up", badges.GREEN))
    long = parse_xml(badges.badge("a much longer label", "up", badges.GREEN))
    assert int(long.get("width") or 0) > int(short.get("width") or 0) + 60
    label = "x" * 500 + "\x07"
    svg = parse_xml(badges.badge(label, "down", badges.RED))
    (title,) = [svg.findtext(f"{SVG}title")]
    assert title is not None and len(title) < 70 and title.endswith("…: down")
    assert int(svg.get("width") or 0) < 500
