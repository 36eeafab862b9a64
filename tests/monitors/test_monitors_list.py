from __future__ import annotations

from tests.factories.api import Api, data, errors
from tests.factories.monitors import MONITORS, create_monitor


async def test_list_is_paginated_in_id_order(api: Api) -> None:
    ids = [(await create_monitor(api))["id"] for _ in range(5)]
    body = (await api.get(MONITORS, params={"per_page": 2, "page": 2})).json()
    assert [item["id"] for item in body["data"]] == ids[2:4]
    assert all(item["type"] == "monitor" for item in body["data"])
    pagination = body["pagination"]
    assert pagination["first"] == "http://testserver/api/v2/monitors?page=1&per_page=2"
    assert pagination["last"] == "http://testserver/api/v2/monitors?page=3&per_page=2"
    assert pagination["prev"] == "http://testserver/api/v2/monitors?page=1&per_page=2"
    assert pagination["next"] == "http://testserver/api/v2/monitors?page=3&per_page=2"


async def test_default_page_size_and_empty_list(api: Api) -> None:
    body = (await api.get(MONITORS)).json()
    assert body["data"] == []
    assert body["pagination"]["last"] == "http://testserver/api/v2/monitors?page=1&per_page=50"
    assert body["pagination"]["next"] is None


async def test_bad_paging_is_422(api: Api) -> None:
    _, fields = errors(await api.get(MONITORS, params={"page": "0", "per_page": "x"}))
    assert set(fields) == {"page", "per_page"}


async def test_a_filter_holding_nul_is_422_on_both_backends(api: Api) -> None:
    await create_monitor(api, url="https://example.com", pronounceable_name="Home")
    response = await api.get(
        MONITORS, params={"url": "https://example.com\x00", "pronounceable_name": "\x00"}
    )
    messages, fields = errors(response)
    assert set(fields) == {"url", "pronounceable_name"}
    assert "url must not contain NUL characters" in messages


async def test_filters_match_exactly(api: Api) -> None:
    home = await create_monitor(api, url="https://example.com", pronounceable_name="Home")
    await create_monitor(api, url="https://example.com/login", pronounceable_name="Home page")
    api_monitor = await create_monitor(
        api, url="https://api.example.com", pronounceable_name="Home"
    )

    async def ids(**params: str) -> list[str]:
        response = await api.get(MONITORS, params=params)
        assert response.status_code == 200
        return [item["id"] for item in response.json()["data"]]

    assert await ids(url="https://example.com") == [home["id"]]
    assert await ids(pronounceable_name="Home") == [home["id"], api_monitor["id"]]
    assert await ids(pronounceable_name="home") == []
    assert await ids(pronounceable_name="Hom") == []
    assert await ids(url="https://api.example.com", pronounceable_name="Home") == [
        api_monitor["id"]
    ]
    assert len(await ids(url="")) == 3


async def test_filters_are_kept_in_pagination_links(api: Api) -> None:
    for _ in range(3):
        await create_monitor(api, pronounceable_name="Same")
    body = (await api.get(MONITORS, params={"pronounceable_name": "Same", "per_page": 1})).json()
    assert body["pagination"]["next"] == (
        "http://testserver/api/v2/monitors?pronounceable_name=Same&page=2&per_page=1"
    )


async def test_monitors_are_isolated_between_teams(api: Api, other_api: Api) -> None:
    mine = await create_monitor(api, url="https://shared.example.com")
    theirs = await create_monitor(other_api, url="https://shared.example.com")
    listed = (await api.get(MONITORS, params={"url": "https://shared.example.com"})).json()
    assert [item["id"] for item in listed["data"]] == [mine["id"]]
    path = f"{MONITORS}/{theirs['id']}"
    for response in (
        await api.get(path),
        await api.patch(path, {"paused": True}),
        await api.delete(path),
    ):
        assert response.status_code == 404
        assert response.json() == {
            "errors": f"Resource type monitor with id = {theirs['id']} was not found"
        }
    assert data(await other_api.get(path)) == theirs


async def test_routes_need_a_token(api: Api) -> None:
    for path in (
        MONITORS,
        f"{MONITORS}/1",
        "/api/v2/monitor-groups",
        "/api/v2/monitor-groups/1/monitors",
    ):
        response = await api.client.get(path)
        assert response.status_code == 401


async def test_a_team_name_filter_lists_the_tokens_team_or_nothing(api: Api) -> None:
    monitor = await create_monitor(api)

    async def ids(team_name: str) -> list[str]:
        response = await api.get(MONITORS, params={"team_name": team_name})
        assert response.status_code == 200
        return [item["id"] for item in response.json()["data"]]

    assert await ids("acme") == await ids("") == [monitor["id"]]
    assert await ids("another team") == []
