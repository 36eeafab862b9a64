"""Routes of /api/v2/monitors (a monitor group's monitors are listed by groups/)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from watchpost.http.body import JsonObject
from watchpost.http.crud import Finder, Routes, Writer, listed_team
from watchpost.http.deps import Caller, ReadDb
from watchpost.http.envelope import listing, single
from watchpost.http.pagination import Paging
from watchpost.monitors import lists, service
from watchpost.monitors.fields import (
    DEFAULT_CHECK_FREQUENCY,
    DEFAULT_CONFIRMATION_PERIOD,
    DEFAULT_RECOVERY_PERIOD,
    MAX_CHECK_FREQUENCY,
    MAX_PERIOD,
    MIN_CHECK_FREQUENCY,
)
from watchpost.monitors.schemas import (
    NOT_NULL,
    MonitorAttributes,
    MonitorCreate,
    MonitorUpdate,
)
from watchpost.monitors.types import EXPIRATION_DAYS, REGIONS, rules_markdown
from watchpost.validation import FilterText

monitors = APIRouter(prefix="/api/v2/monitors", tags=["monitors"])


MONITOR_RULES = f"""Which fields a monitor takes depends on its `monitor_type` (default `status`);
a field that does not apply to the type is a 422 naming it, and every problem is reported at
once.

{rules_markdown()}

Common fields: `check_frequency` {MIN_CHECK_FREQUENCY} to {MAX_CHECK_FREQUENCY} seconds (default
{DEFAULT_CHECK_FREQUENCY}); `confirmation_period` (default {DEFAULT_CONFIRMATION_PERIOD}) and
`recovery_period` (default {DEFAULT_RECOVERY_PERIOD}) 0 to {MAX_PERIOD} seconds;
`ssl_expiration` (https URLs only) and `domain_expiration` (a domain name, not an IP) in days,
one of {", ".join(str(d) for d in EXPIRATION_DAYS)}, null disables; `regions` a non-empty
subset of {", ".join(REGIONS)} (default all). HTTP types default to `http_method` get,
`follow_redirects` true, `verify_ssl` true, `remember_cookies` false. `port` is a string.
`auth_password` is write-only. `request_headers` entries get server-given ids. udp:
`request_body` is the payload sent, `required_keyword` must appear in the reply. dns: `url` is
the DNS server, `request_body` the domain name to resolve, `required_keyword` (optional) an
expected answer. smtp, pop and imap take several of their ports as a comma list
(`"25,465,587"`), each checked. `http_method` is any case, kept as sent, accepted for every
type (only HTTP types use it). playwright: `url` is the scenario name (`scenario_name` sent
alone becomes it); the script and `environment_variables` are stored, not run.
`policy_id` is a number or a string of digits (`""` clears it), shown as a string;
`expiration_policy_id`, `critical_alert`, `proxy_host`, `proxy_port`, `ip_version` are
stored (see docs/api.md); `team_name` must be the token's team.
`monitor_group_id` must name a monitor group of the team. `status` starts
`pending` (`paused` when created paused). Read-only `last_error` is the error of the latest
check, null after a success.
"""

UPDATE_RULES = """Only the sent fields change; the type's rules apply to the monitor as it will
be after the change. `request_headers`, when sent, replaces the list: an entry carrying the id
of an existing header keeps that id, an entry without id is a new header, absent headers are
removed; an entry `{"id": …, "_destroy": "true"}` (Rails style) removes that header.
`monitor_type` may change when the result is valid for the new type: fields the
monitor held at the old type's default take the new type's default (request_timeout too); any
other field the new type does not accept must be sent as null. `paused` true sets `status`
`paused` and `paused_at`; false sets `pending` (until the next check) and clears `paused_at`;
an open incident stays open. A change of a check setting makes the monitor due for a check
right away. A stored `auth_password` must be sent again (or null) when the url's origin or
the port changes."""


monitor_routes = Routes(monitors, MonitorAttributes)


_find = Finder(service.get_monitor, lists.MONITOR, "monitor_id")


@monitor_routes.create(
    "", summary="Create a monitor", description=MONITOR_RULES, body=MonitorCreate
)
async def create_monitor(body: JsonObject, write: Writer) -> Response:
    async with write.session.begin():
        monitor = await service.create_from_body(write, body)
    return single(lists.monitor_resource(monitor, write.team_name), status=201)


@monitor_routes.list(
    "",
    summary="List monitors",
    description="Filters match exactly (case-sensitive); an empty filter value is ignored.",
)
async def list_monitors(
    caller: Caller,
    db: ReadDb,
    paging: Paging,
    url: Annotated[
        FilterText | None, Query(description="Only monitors with exactly this url.")
    ] = None,
    pronounceable_name: Annotated[
        FilterText | None,
        Query(description="Only monitors with exactly this pronounceable_name."),
    ] = None,
    team_name: Annotated[
        FilterText | None,
        Query(description="Only monitors of this team: the token's team lists all, another none."),
    ] = None,
) -> Response:
    page = await lists.list_monitors(
        db,
        team_id=listed_team(caller, team_name),
        team_name=caller.team_name,
        paging=paging,
        url=url,
        pronounceable_name=pronounceable_name,
    )
    return listing(page.data, page.links)


@monitor_routes.get("/{monitor_id}", summary="Get a monitor")
async def get_monitor(monitor_id: str, caller: Caller, db: ReadDb) -> Response:
    monitor = await _find(db, caller, monitor_id)
    return single(lists.monitor_resource(monitor, caller.team_name))


@monitor_routes.update(
    "/{monitor_id}",
    summary="Update a monitor",
    description=UPDATE_RULES,
    body=MonitorUpdate,
    not_null=NOT_NULL,
)
async def update_monitor(monitor_id: str, body: JsonObject, write: Writer) -> Response:
    monitor = await _find.update(write, monitor_id, body, service.update_from_body)
    return single(lists.monitor_resource(monitor, write.team_name))


@monitor_routes.delete("/{monitor_id}", summary="Delete a monitor")
async def delete_monitor(monitor_id: str, write: Writer) -> Response:
    return await _find.delete(write, monitor_id, service.delete_monitor)


# What routes.py serves: this module's routers, each listed flat in the app.
routers = (monitors,)
