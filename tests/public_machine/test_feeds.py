"""The RSS 2.0 and Atom 1.0 feeds of a public page: parsed as XML, item by item."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from email.utils import parsedate_to_datetime

import httpx
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.delivery import advance
from tests.public_machine.helpers import (
    add_update,
    hit,
    new_page,
    new_report,
    new_resource,
    parse_xml,
)

ATOM = "{http://www.w3.org/2005/Atom}"
PAGE_URL = "http://testserver/status/acme"


async def _story(api: Api, app: FastAPI) -> tuple[str, dict[str, object]]:
    page = await new_page(api)
    rid = await new_resource(api, page, "API")
    report = await new_report(
        api,
        page,
        title="API errors",
        message="Looking into it",
        affected_resources=[hit(rid, "downtime")],
    )
    advance(app, 600)
    await add_update(
        api,
        page,
        str(report["id"]),
        message="<b>Fixed</b> & deployed\x01",
        affected_resources=[hit(rid, "resolved")],
    )
    return page, report


async def _get(client: httpx.AsyncClient, path: str, content_type: str) -> ET.Element:
    response = await client.get(path)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == content_type
    assert response.content.startswith(b"<?xml version='1.0' encoding='utf-8'?>")
    return parse_xml(response.content)


async def test_rss(api: Api, client: httpx.AsyncClient, app: FastAPI) -> None:
    _, report = await _story(api, app)
    root = await _get(client, "/status/acme/feed.rss", "application/rss+xml; charset=utf-8")
    assert root.tag == "rss" and root.get("version") == "2.0"
    channel = root.find("channel")
    assert channel is not None
    assert channel.findtext("title") == "Acme Inc status"
    assert channel.findtext("link") == PAGE_URL
    assert channel.findtext("description") == "Status reports and updates of Acme Inc"
    self_link = channel.find(f"{ATOM}link")
    assert self_link is not None and self_link.get("href") == f"{PAGE_URL}/feed.rss"
    items = channel.findall("item")
    assert [i.findtext("title") for i in items] == [
        "API errors: Resolved",
        "API errors: Investigating",
    ]
    newest, oldest = items
    assert newest.findtext("description") == "<b>Fixed</b> & deployed\n\nAffected: API: resolved."
    assert oldest.findtext("description") == "Looking into it\n\nAffected: API: down."
    link = f"{PAGE_URL}/reports/{report['id']}"
    assert {i.findtext("link") for i in items} == {link}
    guids = [i.findtext("guid") for i in items]
    assert len(set(guids)) == 2 and all(g and g.startswith(link + "#update-") for g in guids)
    dates = [parsedate_to_datetime(i.findtext("pubDate") or "") for i in items]
    assert [d.isoformat() for d in dates] == [
        "2026-01-01T00:10:00+00:00",
        "2026-01-01T00:00:00+00:00",
    ]
    last_build = parsedate_to_datetime(channel.findtext("lastBuildDate") or "")
    assert last_build.isoformat() == "2026-01-01T00:10:00+00:00"


async def test_atom(api: Api, client: httpx.AsyncClient, app: FastAPI) -> None:
    _, report = await _story(api, app)
    root = await _get(client, "/status/acme/feed.atom", "application/atom+xml; charset=utf-8")
    assert root.tag == f"{ATOM}feed"
    assert root.findtext(f"{ATOM}id") == f"{PAGE_URL}/feed.atom"
    assert root.findtext(f"{ATOM}title") == "Acme Inc status"
    assert root.findtext(f"{ATOM}updated") == "2026-01-01T00:10:00.000Z"
    assert root.findtext(f"{ATOM}author/{ATOM}name") == "Acme Inc"
    links = {link.get("rel"): link.get("href") for link in root.findall(f"{ATOM}link")}
    assert links == {"self": f"{PAGE_URL}/feed.atom", "alternate": PAGE_URL}
    entries = root.findall(f"{ATOM}entry")
    assert [e.findtext(f"{ATOM}title") for e in entries] == [
        "API errors: Resolved",
        "API errors: Investigating",
    ]
    newest = entries[0]
    assert newest.findtext(f"{ATOM}published") == "2026-01-01T00:10:00.000Z"
    content = newest.find(f"{ATOM}content")
    assert content is not None and content.get("type") == "text"
    assert content.text == "<b>Fixed</b> & deployed\n\nAffected: API: resolved."
    link = newest.find(f"{ATOM}link")
    assert link is not None and link.get("href") == f"{PAGE_URL}/reports/{report['id']}"
    ids = [e.findtext(f"{ATOM}id") for e in entries]
    assert len(set(ids)) == 2


async def test_empty_feeds_are_valid(api: Api, client: httpx.AsyncClient) -> None:
    await new_page(api)
    rss = await _get(client, "/status/acme/feed.rss", "application/rss+xml; charset=utf-8")
    assert rss.findall("channel/item") == []
    atom = await _get(client, "/status/acme/feed.atom", "application/atom+xml; charset=utf-8")
    assert atom.findall(f"{ATOM}entry") == []
    assert atom.findtext(f"{ATOM}updated") == "2026-01-01T00:00:00.000Z"


async def test_feed_hides_future_updates_and_names_maintenance(
    api: Api, client: httpx.AsyncClient, app: FastAPI
) -> None:
    page = await new_page(api)
    rid = await new_resource(api, page, "Database")
    report = await new_report(
        api,
        page,
        title="Upgrade",
        report_type="maintenance",
        message="Planned for 01:00",
        starts_at="2026-01-01T01:00:00Z",
        ends_at="2026-01-01T02:00:00Z",
        affected_resources=[hit(rid, "maintenance")],
    )
    await add_update(
        api,
        page,
        str(report["id"]),
        message="Started",
        published_at="2026-01-01T01:00:00Z",
        affected_resources=[hit(rid, "maintenance")],
    )
    rss = await _get(client, "/status/acme/feed.rss", "application/rss+xml; charset=utf-8")
    titles = [i.findtext("title") for i in rss.findall("channel/item")]
    assert titles == ["Upgrade: Scheduled"]
    assert rss.findtext("channel/item/description") == (
        "Planned for 01:00\n\nAffected: Database: under maintenance."
    )
    advance(app, 3600)
    rss = await _get(client, "/status/acme/feed.rss", "application/rss+xml; charset=utf-8")
    titles = [i.findtext("title") for i in rss.findall("channel/item")]
    assert titles == ["Upgrade: In progress", "Upgrade: Scheduled"]
