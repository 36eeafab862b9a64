"""Bad requests get clear 4xx bodies of the documented shape, never a 500."""

from __future__ import annotations

import pytest

from tests.factories.api import Api, errors
from tests.factories.objects import create_collector, target_body

JSON = {"Content-Type": "application/json"}


@pytest.fixture
async def urls(api: Api) -> list[tuple[str, str]]:
    """(method, url) of every write endpoint, with existing objects behind them."""
    owner = await create_collector(api)
    target = (
        await api.post(f"/api/v1/collectors/{owner['id']}/targets", target_body("redis"))
    ).json()["data"]
    return [
        ("POST", "/api/v1/collectors"),
        ("PATCH", f"/api/v1/collectors/{owner['id']}"),
        ("POST", f"/api/v1/collectors/{owner['id']}/targets"),
        ("PATCH", f"/api/v1/collectors/{owner['id']}/targets/{target['id']}"),
    ]


async def send(api: Api, method: str, url: str, content: bytes, headers: dict[str, str]) -> object:
    return await api.client.request(
        method, url, content=content, headers={**api.headers, **headers}
    )


async def test_malformed_json(api: Api, urls: list[tuple[str, str]]) -> None:
    for method, url in urls:
        for content in (b"{", b'{"name": }', b"{'name': 'x'}", b"\xff\xfe"):
            response = await api.client.request(
                method, url, content=content, headers={**api.headers, **JSON}
            )
            messages, fields = errors(response, 400)
            assert fields == [] and "not valid JSON" in messages[0], (method, url, content)


async def test_body_must_be_an_object(api: Api, urls: list[tuple[str, str]]) -> None:
    for method, url in urls:
        for content in (b"[]", b'[{"name": "x"}]', b'"name"', b"42", b"null", b"true"):
            response = await api.client.request(
                method, url, content=content, headers={**api.headers, **JSON}
            )
            messages, _ = errors(response, 400)
            assert messages == ["body must be a JSON object"], (method, url, content)


async def test_wrong_content_type(api: Api, urls: list[tuple[str, str]]) -> None:
    for method, url in urls:
        for content_type in (
            "text/plain",
            "application/x-www-form-urlencoded",
            "",
            "multipart/form-data",
        ):
            response = await api.client.request(
                method,
                url,
                content=b'{"name": "x"}',
                headers={**api.headers, "Content-Type": content_type},
            )
            messages, _ = errors(response, 415)
            assert "application/json" in messages[0]


async def test_json_with_charset_is_fine(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/collectors",
        content=b'{"name": "x"}',
        headers={**api.headers, "Content-Type": "application/json; charset=utf-8"},
    )
    assert response.status_code == 201


async def test_empty_body_on_create_names_required_fields(api: Api) -> None:
    _, fields = errors(await api.client.post("/api/v1/collectors", headers=api.headers))
    assert fields == ["name"]
    owner = await create_collector(api)
    _, fields = errors(
        await api.client.post(f"/api/v1/collectors/{owner['id']}/targets", headers=api.headers)
    )
    assert set(fields) == {"kind", "host"}


async def test_unknown_fields_are_named(api: Api) -> None:
    messages, fields = errors(await api.post("/api/v1/collectors", {"name": "x", "colour": 1}))
    assert fields == ["colour"]
    assert messages == ["colour is not a known attribute"]


async def test_unknown_route(api: Api) -> None:
    for method, path in (
        ("GET", "/api/v1/nothing"),
        ("POST", "/nope"),
        ("GET", "/api/v1/collectors/1/x"),
    ):
        response = await api.client.request(method, path, headers=api.headers)
        assert response.status_code == 404
        assert response.json() == {"errors": f"Endpoint {method} {path} does not exist."}


async def test_unknown_route_without_a_token_is_still_404(api: Api) -> None:
    response = await api.client.get("/api/v1/nothing")
    assert response.status_code == 404
    assert set(response.json()) == {"errors"}


async def test_method_not_allowed(api: Api) -> None:
    for method, path in (
        ("PUT", "/api/v1/collectors"),
        ("DELETE", "/api/v1/collectors"),
        ("POST", "/api/v1/collectors/1"),
    ):
        response = await api.client.request(method, path, headers=api.headers)
        assert response.status_code == 405
        assert response.json() == {"errors": f"Method {method} is not allowed for {path}."}


async def test_unknown_and_non_numeric_ids(api: Api) -> None:
    owner = await create_collector(api)
    for path, kind, raw in (
        ("/api/v1/collectors/77777", "collector", "77777"),
        ("/api/v1/collectors/abc", "collector", "abc"),
        ("/api/v1/collectors/-1", "collector", "-1"),
        ("/api/v1/collectors/1.0", "collector", "1.0"),
        ("/api/v1/collectors/" + "9" * 40, "collector", "9" * 40),
        (f"/api/v1/collectors/{owner['id']}/targets/x1", "collector_target", "x1"),
        (f"/api/v1/collectors/{owner['id']}/targets/55555", "collector_target", "55555"),
    ):
        for method in ("GET", "PATCH", "DELETE"):
            response = await api.client.request(
                method, path, headers=api.headers, json={} if method == "PATCH" else None
            )
            assert response.status_code == 404, (method, path, response.text)
            assert response.json() == {
                "errors": f"Resource type {kind} with id = {raw} was not found"
            }


async def test_odd_inputs_never_500(api: Api) -> None:
    owner = await create_collector(api)
    base = f"/api/v1/collectors/{owner['id']}/targets"
    bodies = [
        {"kind": "redis", "host": "h", "port": 2**70},
        {"kind": "redis", "host": "h", "port": -(2**70)},
        {"kind": "redis", "host": "h" * 100_000, "port": 1},
        {"kind": "redis", "host": "\u0000", "port": 1},
        {"kind": {"nested": 1}, "host": ["x"], "port": {}},
        {"kind": "prometheus", "host": "h", "service": "s", "endpoint": "http://[::1"},
        {"kind": "prometheus", "host": "h", "service": "s", "endpoint": "http://h:99999/"},
        {"name": "x" * 10_000},
    ]
    for body in bodies:
        response = await api.post(base, body)
        assert 400 <= response.status_code < 500, (body, response.status_code, response.text)
    for name in ("\u0000", "😀" * 300, {"a": 1}):
        response = await api.post("/api/v1/collectors", {"name": name})
        assert 400 <= response.status_code < 500


async def test_nul_characters_are_refused_on_both_backends(api: Api) -> None:
    _, fields = errors(await api.post("/api/v1/collectors", {"name": "a\u0000b", "note": "ok"}))
    assert fields == ["name"]
