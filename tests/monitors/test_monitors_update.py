from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from tests.factories.api import TEST_PASSWORD, Api, data, errors
from tests.factories.monitors import MINIMAL, MONITORS, create_monitor, create_monitor_group
from watchpost.clock import FrozenClock, isoformat_ms
from watchpost.monitors.models import Monitor


async def _row(app: FastAPI, monitor_id: str) -> Monitor:
    async with app.state.ctx.db.read_sessions() as session:
        monitor: Monitor | None = await session.get(Monitor, int(monitor_id))
        assert monitor is not None
        return monitor


async def _patch(api: Api, monitor_id: str, body: dict[str, Any]) -> dict[str, Any]:
    attributes: dict[str, Any] = data(await api.patch(f"{MONITORS}/{monitor_id}", body))[
        "attributes"
    ]
    return attributes


async def test_only_sent_fields_change(api: Api, clock: FrozenClock) -> None:
    created = await create_monitor(api, pronounceable_name="Home")
    clock.advance(60)
    attributes = await _patch(api, created["id"], {"check_frequency": 300})
    assert attributes["check_frequency"] == 300
    assert attributes["pronounceable_name"] == "Home"
    assert attributes["updated_at"] == isoformat_ms(clock.now())
    assert attributes["created_at"] == created["attributes"]["created_at"]
    assert data(await api.get(f"{MONITORS}/{created['id']}"))["attributes"] == attributes


async def test_null_for_an_always_set_field_is_refused(api: Api) -> None:
    created = await create_monitor(api)
    response = await api.patch(
        f"{MONITORS}/{created['id']}", {"url": None, "check_frequency": None, "paused": None}
    )
    _, fields = errors(response)
    assert set(fields) == {"url", "check_frequency", "paused"}


async def test_null_clears_an_optional_field_and_restores_a_default(api: Api) -> None:
    created = await create_monitor(api, pronounceable_name="Home", http_method="post")
    attributes = await _patch(api, created["id"], {"pronounceable_name": None, "http_method": None})
    assert attributes["pronounceable_name"] is None
    assert attributes["http_method"] == "get"


async def test_patch_validates_the_merged_monitor(api: Api) -> None:
    created = await create_monitor(api, "keyword")
    _, fields = errors(await api.patch(f"{MONITORS}/{created['id']}", {"required_keyword": None}))
    assert fields == ["required_keyword"]
    _, fields = errors(await api.patch(f"{MONITORS}/{created['id']}", {"port": "80"}))
    assert fields == ["port"]
    http = await create_monitor(api, "status", url="http://example.com")
    _, fields = errors(await api.patch(f"{MONITORS}/{http['id']}", {"ssl_expiration": 7}))
    assert fields == ["ssl_expiration"]
    attributes = await _patch(api, http["id"], {"ssl_expiration": 7, "url": "https://example.com"})
    assert attributes["ssl_expiration"] == 7


async def test_a_refused_patch_changes_nothing(api: Api) -> None:
    created = await create_monitor(api, "tcp")
    errors(await api.patch(f"{MONITORS}/{created['id']}", {"pronounceable_name": "x", "port": "0"}))
    assert data(await api.get(f"{MONITORS}/{created['id']}")) == created


async def test_type_change_with_only_defaults_takes_the_new_defaults(api: Api) -> None:
    created = await create_monitor(api, "status")
    attributes = await _patch(
        api, created["id"], {"monitor_type": "tcp", "url": "example.com", "port": "443"}
    )
    assert attributes["monitor_type"] == "tcp"
    assert attributes["request_timeout"] == 5000
    for name in ("http_method", "follow_redirects", "verify_ssl", "remember_cookies"):
        assert attributes[name] is None
    back = await _patch(
        api,
        created["id"],
        {"monitor_type": "status", "url": "https://example.com", "port": None},
    )
    assert back["request_timeout"] == 30
    assert back["http_method"] == "get"
    assert back["follow_redirects"] is True
    assert back["port"] is None


async def test_type_change_must_leave_a_valid_monitor(api: Api) -> None:
    created = await create_monitor(api, "keyword", request_timeout=10, verify_ssl=False)
    path = f"{MONITORS}/{created['id']}"
    _, fields = errors(await api.patch(path, {"monitor_type": "ping"}))
    assert set(fields) == {"url", "required_keyword", "verify_ssl", "request_timeout"}
    attributes = await _patch(
        api,
        created["id"],
        {
            "monitor_type": "ping",
            "url": "example.com",
            "required_keyword": None,
            "verify_ssl": None,
            "request_timeout": 1000,
        },
    )
    assert attributes["monitor_type"] == "ping"
    assert attributes["required_keyword"] is None


async def test_type_change_to_playwright_keeps_the_url_as_scenario(api: Api) -> None:
    created = await create_monitor(api)
    attributes = await _patch(api, created["id"], {"monitor_type": "playwright"})
    # the fields held at the status type's defaults take playwright's (none, and 60 s)
    assert attributes["scenario_name"] == attributes["url"] == "https://example.com"
    assert attributes["http_method"] is None
    assert attributes["request_timeout"] == 60


async def test_request_headers_keep_their_ids(api: Api) -> None:
    created = await create_monitor(
        api,
        request_headers=[{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
    )
    assert [h["id"] for h in created["attributes"]["request_headers"]] == ["1", "2"]
    attributes = await _patch(
        api,
        created["id"],
        {
            "request_headers": [
                {"id": "2", "name": "B", "value": "changed"},
                {"name": "C", "value": "3"},
            ]
        },
    )
    assert attributes["request_headers"] == [
        {"id": "2", "name": "B", "value": "changed"},
        {"id": "3", "name": "C", "value": "3"},
    ]
    # A removed header's id is never given again.
    attributes = await _patch(
        api, created["id"], {"request_headers": [{"id": 2, "name": "B", "value": "x"}]}
    )
    attributes = await _patch(
        api,
        created["id"],
        {"request_headers": [{"id": "2", "name": "B", "value": "x"}, {"name": "D", "value": ""}]},
    )
    assert [h["id"] for h in attributes["request_headers"]] == ["2", "4"]
    untouched = await _patch(api, created["id"], {"check_frequency": 60})
    assert untouched["request_headers"] == attributes["request_headers"]
    cleared = await _patch(api, created["id"], {"request_headers": []})
    assert cleared["request_headers"] == []


async def test_request_header_ids_must_be_known(api: Api, other_api: Api) -> None:
    created = await create_monitor(api, request_headers=[{"name": "A", "value": "1"}])
    path = f"{MONITORS}/{created['id']}"
    _, fields = errors(
        await api.patch(path, {"request_headers": [{"id": "9", "name": "A", "value": "1"}]})
    )
    assert fields == ["request_headers"]
    twice = [{"id": "1", "name": "A", "value": "1"}, {"id": "1", "name": "B", "value": "2"}]
    _, fields = errors(await api.patch(path, {"request_headers": twice}))
    assert fields == ["request_headers"]
    assert data(await api.get(path)) == created


async def test_pause_and_unpause(api: Api, app: FastAPI, clock: FrozenClock) -> None:
    created = await create_monitor(api)
    clock.advance(100)
    paused = await _patch(api, created["id"], {"paused": True})
    assert paused["paused"] is True
    assert paused["status"] == "paused"
    assert paused["paused_at"] == isoformat_ms(clock.now())
    assert (await _row(app, created["id"])).next_check_at is None
    clock.advance(100)
    again = await _patch(api, created["id"], {"paused": True, "check_frequency": 60})
    assert again["paused_at"] == paused["paused_at"]
    assert (await _row(app, created["id"])).next_check_at is None
    clock.advance(100)
    resumed = await _patch(api, created["id"], {"paused": False})
    assert resumed["paused"] is False
    assert resumed["status"] == "pending"
    assert resumed["paused_at"] is None
    assert (await _row(app, created["id"])).next_check_at == clock.now()


async def test_check_setting_changes_make_the_monitor_due(
    api: Api, app: FastAPI, clock: FrozenClock
) -> None:
    created = await create_monitor(api)
    start = clock.now()
    clock.advance(600)
    await _patch(api, created["id"], {"pronounceable_name": "Only a name", "email": False})
    assert (await _row(app, created["id"])).next_check_at == start
    await _patch(api, created["id"], {"url": "https://example.org"})
    assert (await _row(app, created["id"])).next_check_at == clock.now()
    clock.advance(60)
    await _patch(api, created["id"], {"check_frequency": 60})
    assert (await _row(app, created["id"])).next_check_at == clock.now()


async def test_auth_password_is_write_only(api: Api, app: FastAPI) -> None:
    created = await create_monitor(api, auth_username="u", auth_password=TEST_PASSWORD)
    assert "auth_password" not in created["attributes"]
    attributes = await _patch(api, created["id"], {"auth_username": "v"})
    assert "auth_password" not in attributes
    row = await _row(app, created["id"])
    assert row.auth_password_encrypted is not None
    assert app.state.ctx.box.decrypt(row.auth_password_encrypted) == TEST_PASSWORD
    await _patch(api, created["id"], {"auth_password": None})
    assert (await _row(app, created["id"])).auth_password_encrypted is None


async def test_a_stored_password_blocks_a_type_without_it(api: Api) -> None:
    created = await create_monitor(api, auth_password=TEST_PASSWORD)
    path = f"{MONITORS}/{created['id']}"
    response = await api.patch(path, {"monitor_type": "ping", "url": "example.com"})
    _, fields = errors(response)
    assert fields == ["auth_password"]
    assert TEST_PASSWORD not in response.text
    body = {"monitor_type": "ping", "url": "example.com", "auth_password": None}
    assert (await _patch(api, created["id"], body))["monitor_type"] == "ping"


async def test_move_between_groups(api: Api, other_api: Api) -> None:
    group = await create_monitor_group(api)
    theirs = await create_monitor_group(other_api)
    created = await create_monitor(api)
    attributes = await _patch(api, created["id"], {"monitor_group_id": int(group["id"])})
    assert attributes["monitor_group_id"] == int(group["id"])
    _, fields = errors(
        await api.patch(f"{MONITORS}/{created['id']}", {"monitor_group_id": int(theirs["id"])})
    )
    assert fields == ["monitor_group_id"]
    assert (await _patch(api, created["id"], {"monitor_group_id": None}))[
        "monitor_group_id"
    ] is None


async def test_delete(api: Api) -> None:
    created = await create_monitor(api)
    response = await api.delete(f"{MONITORS}/{created['id']}")
    assert response.status_code == 204
    assert response.content == b""
    assert (await api.get(f"{MONITORS}/{created['id']}")).status_code == 404
    assert (await api.delete(f"{MONITORS}/{created['id']}")).status_code == 404


async def test_unknown_and_malformed_ids_are_404(api: Api) -> None:
    for path in (f"{MONITORS}/999", f"{MONITORS}/abc"):
        for response in (
            await api.get(path),
            await api.patch(path, {"paused": True}),
            await api.delete(path),
        ):
            assert response.status_code == 404
            assert "Resource type monitor with id" in response.json()["errors"]


async def test_every_type_can_be_patched_without_changes(api: Api) -> None:
    for monitor_type in MINIMAL:
        created = await create_monitor(api, monitor_type)
        attributes = await _patch(api, created["id"], {})
        assert attributes == created["attributes"]
