"""Pagination links are consistent for any size, and following `next` visits every item once."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from hypothesis import given
from hypothesis import strategies as st

from tests.factories.api import Api, errors
from tests.factories.objects import create_collector
from watchpost.listing import MAX_PER_PAGE, PageRequest, pagination_links

BASE = "https://watch.example/api/v1/things"


def query(url: str) -> list[tuple[str, str]]:
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == BASE
    return parse_qsl(parts.query, keep_blank_values=True)


@given(
    total=st.integers(0, 2000),
    per_page=st.integers(1, 300),
    page=st.integers(1, 60),
    others=st.lists(
        st.tuples(st.sampled_from(["kind", "name", "q"]), st.text("ab c&=é", max_size=4)),
        max_size=3,
    ),
)
def test_links_are_consistent(
    total: int, per_page: int, page: int, others: list[tuple[str, str]]
) -> None:
    clamped = min(per_page, MAX_PER_PAGE)
    request = PageRequest(page=page, per_page=clamped, base_url=BASE, other_params=tuple(others))
    links = pagination_links(request, total)
    last = max(1, -(-total // clamped))

    def page_of(url: str | None) -> int:
        assert url is not None
        params = query(url)
        assert params[: len(others)] == others
        assert dict(params[len(others) :]) == {"page": params[-2][1], "per_page": str(clamped)}
        return int(dict(params)["page"])

    assert page_of(links["first"]) == 1
    assert page_of(links["last"]) == last
    assert (links["prev"] is None) == (page == 1)
    assert (links["next"] is None) == (page >= last)
    if links["prev"] is not None:
        assert page_of(links["prev"]) == min(page - 1, last)
    if links["next"] is not None:
        assert page_of(links["next"]) == page + 1


async def test_following_next_visits_every_item_once(api: Api) -> None:
    made: list[str] = []
    for size in (0, 1, 2, 3, 7, 12):
        while len(made) < size:
            made.append((await create_collector(api))["id"])
        for per_page in (1, 2, 5, 12):
            seen: list[str] = []
            url: str | None = f"/api/v1/collectors?per_page={per_page}&kind=x"
            pages = 0
            while url is not None:
                body = (await api.get(url)).json()
                seen += [item["id"] for item in body["data"]]
                assert "kind=x" in body["pagination"]["first"]
                url = body["pagination"]["next"]
                pages += 1
                assert pages <= size + 1
            assert seen == made, (size, per_page)
            assert int(dict(parse_qsl(urlsplit(body["pagination"]["last"]).query))["page"]) == max(
                1, -(-size // per_page)
            )


async def test_pagination_over_http(api: Api) -> None:
    ids = [(await create_collector(api))["id"] for _ in range(3)]
    body = (await api.get("/api/v1/collectors?per_page=2&page=2")).json()
    assert [item["id"] for item in body["data"]] == ids[2:]
    assert body["pagination"] == {
        "first": "http://testserver/api/v1/collectors?page=1&per_page=2",
        "last": "http://testserver/api/v1/collectors?page=2&per_page=2",
        "prev": "http://testserver/api/v1/collectors?page=1&per_page=2",
        "next": None,
    }
    past = (await api.get("/api/v1/collectors?per_page=2&page=9")).json()
    assert past["data"] == []
    assert past["pagination"]["prev"] == "http://testserver/api/v1/collectors?page=2&per_page=2"
    default = (await api.get("/api/v1/collectors")).json()["pagination"]
    assert default["last"] == "http://testserver/api/v1/collectors?page=1&per_page=50"
    clamped = (await api.get("/api/v1/collectors?per_page=1000")).json()["pagination"]
    assert clamped["first"].endswith("per_page=250")


async def test_empty_list_has_a_last_page(api: Api) -> None:
    body = (await api.get("/api/v1/collectors")).json()
    assert body["data"] == []
    assert body["pagination"]["last"].endswith("?page=1&per_page=50")
    assert body["pagination"]["prev"] is None and body["pagination"]["next"] is None


async def test_bad_page_parameters(api: Api) -> None:
    for params, expected in (
        ("page=0", ["page"]),
        ("page=-1", ["page"]),
        ("page=a", ["page"]),
        ("page=1.5", ["page"]),
        ("page=", ["page"]),
        ("per_page=0", ["per_page"]),
        ("per_page=x", ["per_page"]),
        ("page=0&per_page=0", ["page", "per_page"]),
    ):
        _, fields = errors(await api.get(f"/api/v1/collectors?{params}"))
        assert fields == expected, params


async def test_public_url_is_the_link_base(api: Api, app: object) -> None:
    from fastapi import FastAPI

    assert isinstance(app, FastAPI)
    app.state.ctx.settings.public_url = "https://watch.example.com/"
    body = (await api.get("/api/v1/collectors?per_page=5")).json()
    assert (
        body["pagination"]["first"]
        == "https://watch.example.com/api/v1/collectors?page=1&per_page=5"
    )
