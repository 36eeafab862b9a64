"""Sources: the created shape, defaults, tokens, table names, ingesting host, PATCH and DELETE."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import select

from tests.factories.api import Api, data
from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.crypto import hash_token
from watchpost.sources.models import Source
from watchpost.sources.platforms import (
    DEFAULT_LIVE_TAIL_PATTERN,
    DEFAULT_LOGS_RETENTION,
    DEFAULT_METRICS_RETENTION,
    PLATFORMS,
)

SOURCES = "/api/v1/sources"
TABLE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")


async def create(api: Api, name: str = "app", **fields: Any) -> dict[str, Any]:
    return data(await api.post(SOURCES, {"name": name, "platform": "python", **fields}), 201)


async def stored(app: FastAPI, source_id: str) -> Source:
    ctx: AppContext = app.state.ctx
    async with ctx.db.read_sessions() as session:
        source = await session.scalar(select(Source).where(Source.id == int(source_id)))
    assert source is not None
    return source


# --------------------------------------------------------------------------- shape


async def test_create_minimal_returns_the_full_shape_with_defaults(api: Api) -> None:
    created = await create(api, "My App")
    assert created["type"] == "source"
    assert isinstance(created["id"], str)
    attributes = created["attributes"]
    token = attributes.pop("token")
    assert attributes == {
        "team_id": api.team_id,
        "team_name": "acme",
        "name": "My App",
        "source_group_id": None,
        "table_name": f"t{api.team_id}_my_app",
        "platform": "python",
        "ingesting_host": "testserver",
        "ingesting_url": "http://testserver",
        "ingesting_paused": False,
        "logs_retention": DEFAULT_LOGS_RETENTION,
        "metrics_retention": DEFAULT_METRICS_RETENTION,
        "live_tail_pattern": DEFAULT_LIVE_TAIL_PATTERN,
        "created_at": "2026-01-01T00:00:00.000Z",
        "updated_at": "2026-01-01T00:00:00.000Z",
        # the hosted API's stored settings, none sent (sources/hosted.py)
        "data_region": None,
        "vrl_transformation_logs": None,
        "vrl_transformation_spans": None,
        "blocked_metrics": None,
        "scrape_urls": None,
        "scrape_frequency_secs": None,
        "scrape_request_headers": None,
        "scrape_request_basic_auth_user": None,
        "code_mapping_stack_root": None,
        "code_mapping_source_root": None,
        "skip_ssl_verify": False,
        "aws_auto_sub_log_groups": False,
        "custom_bucket": None,
    }
    assert isinstance(token, str) and token


async def test_documented_defaults() -> None:
    assert DEFAULT_LOGS_RETENTION == 30
    assert DEFAULT_METRICS_RETENTION == 30
    assert DEFAULT_LIVE_TAIL_PATTERN == "{level} {message}"


async def test_create_with_every_writable_field(api: Api) -> None:
    group = data(await api.post("/api/v1/source-groups", {"name": "prod"}), 201)
    created = await create(
        api,
        "worker",
        platform="kubernetes",
        source_group_id=int(group["id"]),
        ingesting_paused=True,
        logs_retention=7,
        metrics_retention=90,
        live_tail_pattern="{context.host} {level}: {message}",
    )
    attributes = created["attributes"]
    assert attributes["platform"] == "kubernetes"
    assert attributes["source_group_id"] == int(group["id"])
    assert attributes["ingesting_paused"] is True
    assert (attributes["logs_retention"], attributes["metrics_retention"]) == (7, 90)
    assert attributes["live_tail_pattern"] == "{context.host} {level}: {message}"


async def test_get_returns_what_create_returned(api: Api) -> None:
    created = await create(api)
    assert data(await api.get(f"{SOURCES}/{created['id']}")) == created


async def test_name_is_trimmed(api: Api) -> None:
    assert (await create(api, "  spaced  "))["attributes"]["name"] == "spaced"


async def test_every_reference_platform_is_accepted() -> None:
    reference = [
        "http",
        "python",
        "ruby",
        "javascript",
        "docker",
        "kubernetes",
        "nginx",
        "postgresql",
        "mysql",
        "redis",
        "prometheus_scrape",
        "open_telemetry",
        "syslog-ng",
        "vector",
    ]
    assert set(reference) <= set(PLATFORMS)
    assert len(PLATFORMS) == len(set(PLATFORMS))


async def test_each_platform_can_be_created(api: Api) -> None:
    for platform in ("http", "syslog-ng", "open_telemetry", "vector"):
        created = await create(api, platform, platform=platform)
        assert created["attributes"]["platform"] == platform


# ---------------------------------------------------------------------------- token


async def test_tokens_are_unique_long_and_stored_hashed_and_encrypted(
    api: Api, app: FastAPI
) -> None:
    created = [await create(api, f"s{i}") for i in range(10)]
    tokens = [item["attributes"]["token"] for item in created]
    assert len(set(tokens)) == len(tokens)
    for item, token in zip(created, tokens, strict=True):
        assert len(token) >= 32  # 32 random bytes, URL-safe base64, behind a prefix
        row = await stored(app, item["id"])
        assert row.token_hash == hash_token(token)
        assert token not in row.token_encrypted
        assert app.state.ctx.box.decrypt(row.token_encrypted) == token


async def test_token_is_stable_across_reads_and_updates(api: Api) -> None:
    created = await create(api)
    token = created["attributes"]["token"]
    updated = data(await api.patch(f"{SOURCES}/{created['id']}", {"name": "renamed"}))
    assert updated["attributes"]["token"] == token
    assert data(await api.get(f"{SOURCES}/{created['id']}"))["attributes"]["token"] == token


# ----------------------------------------------------------------------- table_name


async def test_table_name_replaces_unsafe_characters(api: Api) -> None:
    cases = {
        "Robert'); DROP TABLE students;--": "robert_drop_table_students",
        "Café Über-Prod": "cafe_uber_prod",
        "  __Hello World__  ": "hello_world",
        "2024 logs": "2024_logs",
        "日本語": "source",
        "!!!": "source_2",  # the previous one took `source`
    }
    for name, slug in cases.items():
        table = (await create(api, name))["attributes"]["table_name"]
        assert table == f"t{api.team_id}_{slug}", name
        assert TABLE_NAME.match(table)


async def test_long_names_are_cut_to_63_characters(api: Api) -> None:
    first = (await create(api, "x" * 255))["attributes"]["table_name"]
    second = (await create(api, "x" * 255))["attributes"]["table_name"]
    assert len(first) == 63 and len(second) == 63
    assert first != second
    assert second.endswith("_2")
    assert TABLE_NAME.match(first) and TABLE_NAME.match(second)


async def test_collisions_get_numeric_suffixes(api: Api) -> None:
    base = f"t{api.team_id}_app"
    names = [
        (await create(api, name))["attributes"]["table_name"] for name in ("app", "App", "app!")
    ]
    assert names == [base, f"{base}_2", f"{base}_3"]


async def test_suffix_skips_a_name_taken_by_another_source(api: Api) -> None:
    base = f"t{api.team_id}_app"
    assert (await create(api, "app 2"))["attributes"]["table_name"] == f"{base}_2"
    assert (await create(api, "app"))["attributes"]["table_name"] == base
    assert (await create(api, "app"))["attributes"]["table_name"] == f"{base}_3"


async def test_table_names_are_unique_across_teams(api: Api, other_api: Api) -> None:
    ours = (await create(api, "app"))["attributes"]["table_name"]
    theirs = (await create(other_api, "app"))["attributes"]["table_name"]
    assert ours != theirs
    assert theirs == f"t{other_api.team_id}_app"


async def test_table_name_does_not_change_on_rename(api: Api) -> None:
    created = await create(api, "before")
    updated = data(await api.patch(f"{SOURCES}/{created['id']}", {"name": "after"}))
    assert updated["attributes"]["name"] == "after"
    assert updated["attributes"]["table_name"] == created["attributes"]["table_name"]
    # the old slug stays taken: a new source named like the old one gets a suffix
    again = await create(api, "before")
    assert again["attributes"]["table_name"] == created["attributes"]["table_name"] + "_2"


# ------------------------------------------------------------------- ingesting_host


async def test_ingesting_host_defaults_to_the_request_host_with_its_port(api: Api) -> None:
    """An address a client can send to as it is: the port stays."""
    created = await create(api)
    response = await api.client.get(
        f"{SOURCES}/{created['id']}", headers={**api.headers, "Host": "logs.example.org:8443"}
    )
    assert data(response)["attributes"]["ingesting_host"] == "logs.example.org:8443"
    assert data(response)["attributes"]["ingesting_url"] == "http://logs.example.org:8443"
    secure = await api.client.get(f"https://logs.example.org{SOURCES}", headers=api.headers)
    assert secure.json()["data"][0]["attributes"]["ingesting_url"] == "https://logs.example.org"


async def test_ingesting_host_from_public_url(api: Api, app: FastAPI) -> None:
    settings = app.state.ctx.settings
    app.state.ctx.settings = settings.model_copy(
        update={"public_url": "https://mon.example.com:444/"}
    )
    created = await create(api)
    assert created["attributes"]["ingesting_host"] == "mon.example.com:444"
    assert created["attributes"]["ingesting_url"] == "https://mon.example.com:444"
    # behind a path, as every link of the public URL
    app.state.ctx.settings = settings.model_copy(update={"public_url": "http://[::1]/wp/"})
    shown = data(await api.get(f"{SOURCES}/{created['id']}"))["attributes"]
    assert (shown["ingesting_host"], shown["ingesting_url"]) == ("[::1]", "http://[::1]/wp")


async def test_ingesting_host_setting_wins(api: Api, app: FastAPI) -> None:
    settings = app.state.ctx.settings
    app.state.ctx.settings = settings.model_copy(
        update={"public_url": "https://mon.example.com", "ingesting_host": "in.example.com"}
    )
    created = await create(api)
    assert created["attributes"]["ingesting_host"] == "in.example.com"
    listed = (await api.get(SOURCES)).json()["data"]
    assert listed[0]["attributes"]["ingesting_host"] == "in.example.com"
    # a host alone takes the public URL's scheme
    assert listed[0]["attributes"]["ingesting_url"] == "https://in.example.com"


@pytest.mark.parametrize(
    ("setting", "public_url", "host", "url"),
    [
        ("in.example.com:8080", None, "in.example.com:8080", "http://in.example.com:8080"),
        (
            "http://in.example.com:8080/",
            "https://mon.example.com",
            "in.example.com:8080",
            "http://in.example.com:8080",
        ),
        ("https://in.example.com", None, "in.example.com", "https://in.example.com"),
    ],
)
async def test_ingesting_url_has_the_scheme_clients_must_use(
    api: Api, app: FastAPI, setting: str, public_url: str | None, host: str, url: str
) -> None:
    """A host alone takes the public URL's scheme, else the request's; a URL names its own."""
    settings = app.state.ctx.settings
    app.state.ctx.settings = settings.model_copy(
        update={"public_url": public_url, "ingesting_host": setting}
    )
    created = await create(api)
    assert (created["attributes"]["ingesting_host"], created["attributes"]["ingesting_url"]) == (
        host,
        url,
    )
    schema = app.openapi()["components"]["schemas"]["SourceAttributes"]["properties"]
    assert schema["ingesting_url"]["readOnly"] is True
    grouped = data(await api.post("/api/v1/source-groups", {"name": "g"}), 201)
    await api.patch(f"{SOURCES}/{created['id']}", {"source_group_id": int(grouped["id"])})
    members = (await api.get(f"/api/v1/source-groups/{grouped['id']}/sources")).json()["data"]
    assert members[0]["attributes"]["ingesting_url"] == url


# --------------------------------------------------------------------- PATCH, DELETE


async def test_patch_changes_sent_fields_only(api: Api, clock: FrozenClock) -> None:
    created = await create(api, logs_retention=10)
    clock.advance(60)
    updated = data(
        await api.patch(
            f"{SOURCES}/{created['id']}",
            {
                "name": "new",
                "ingesting_paused": True,
                "metrics_retention": 3652,
                "live_tail_pattern": "{message}",
            },
        )
    )
    expected = {
        **created["attributes"],
        "name": "new",
        "ingesting_paused": True,
        "metrics_retention": 3652,
        "live_tail_pattern": "{message}",
        "updated_at": "2026-01-01T00:01:00.000Z",
    }
    assert updated["attributes"] == expected
    assert data(await api.get(f"{SOURCES}/{created['id']}"))["attributes"] == expected


async def test_patch_with_same_platform_is_accepted(api: Api) -> None:
    created = await create(api)
    updated = data(await api.patch(f"{SOURCES}/{created['id']}", {"platform": "python"}))
    assert updated["attributes"]["platform"] == "python"


async def test_patch_empty_body_only_touches_updated_at(api: Api, clock: FrozenClock) -> None:
    created = await create(api)
    clock.advance(1)
    updated = data(await api.patch(f"{SOURCES}/{created['id']}", {}))
    assert updated["attributes"] == {
        **created["attributes"],
        "updated_at": "2026-01-01T00:00:01.000Z",
    }


async def test_patch_moves_between_groups_and_ungroups(api: Api) -> None:
    first = data(await api.post("/api/v1/source-groups", {"name": "a"}), 201)
    second = data(await api.post("/api/v1/source-groups", {"name": "b"}), 201)
    created = await create(api, source_group_id=int(first["id"]))
    path = f"{SOURCES}/{created['id']}"
    moved = data(await api.patch(path, {"source_group_id": int(second["id"])}))
    assert moved["attributes"]["source_group_id"] == int(second["id"])
    ungrouped = data(await api.patch(path, {"source_group_id": None}))
    assert ungrouped["attributes"]["source_group_id"] is None


async def test_delete_removes_the_source(api: Api) -> None:
    keep = await create(api, "keep")
    gone = await create(api, "gone")
    response = await api.delete(f"{SOURCES}/{gone['id']}")
    assert response.status_code == 204 and response.content == b""
    assert (await api.get(f"{SOURCES}/{gone['id']}")).status_code == 404
    assert (await api.delete(f"{SOURCES}/{gone['id']}")).status_code == 404
    assert data(await api.get(f"{SOURCES}/{keep['id']}")) == keep


async def test_unknown_ids_are_404(api: Api) -> None:
    for raw in ("999", "abc", "-1", "1.5"):
        path = f"{SOURCES}/{raw}"
        for response in (
            await api.get(path),
            await api.patch(path, {"name": "x"}),
            await api.delete(path),
        ):
            assert response.status_code == 404, (raw, response.text)
            assert response.json() == {
                "errors": f"Resource type source with id = {raw} was not found"
            }
