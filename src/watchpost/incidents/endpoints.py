"""Routes of /api/v2/incidents: list, read, report, acknowledge, resolve, reopen, comments,
timeline, delete."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.context import AppContext
from watchpost.delivery import service as deliveries
from watchpost.delivery.schemas import DeliveryAttributes
from watchpost.http.body import JsonObject
from watchpost.http.children import Children, PathIds, Within
from watchpost.http.crud import CHILD_LIST_ERRORS, Finder, Routes, Writer
from watchpost.http.deps import Caller, Context, ReadDb, WriteDb
from watchpost.http.envelope import listing, single
from watchpost.http.errors import error_responses
from watchpost.http.pagination import Paging
from watchpost.incidents import comments, lists, rendering, service
from watchpost.incidents.models import Incident, IncidentComment
from watchpost.incidents.rendering import INCIDENT
from watchpost.incidents.schemas import (
    AcknowledgeBody,
    CommentAttributes,
    CommentCreate,
    CommentUpdate,
    IncidentAttributes,
    IncidentCreate,
    ReopenBody,
    ResolveBody,
    TimelineItemAttributes,
    parse_filters,
)
from watchpost.incidents.transitions import Change, apply
from watchpost.problems import parse
from watchpost.teams.service import Principal
from watchpost.validation import INT64_MAX, documented_as, object_id

router = APIRouter(prefix="/api/v2/incidents", tags=["incidents"])

B = TypeVar("B", bound=BaseModel)
STATE_ERRORS = error_responses(400, 401, 404, 409, 415, 422)

LIST_RULES = """Filters combine (all must match); an empty value is ignored; a bad value is a
422 naming the parameter. `from` and `to` bound `started_at` and take an ISO 8601 date
(`2026-01-31`, a whole UTC day) or datetime (`2026-01-31T12:00:00Z`; without an offset it is
UTC). Both bounds are inclusive: `from` a date means from its first moment, `to` a date means
up to its last moment, `to` a datetime includes incidents started at that millisecond.
`resolved=true` lists resolved incidents, `false` open ones. `acknowledged=true` lists
incidents someone acknowledged (resolved ones included), `false` those nobody acknowledged
(including incidents resolved without acknowledgement). A `monitor_id` or `heartbeat_id` of
another team simply matches nothing. Oldest first (by id)."""

CREATE_RULES = """Report an incident by hand: `manual` is true, `status` `started`. `name`
and `summary` are required; `summary` is stored as the incident's `cause`. `requester_email`
(optional) is shown as who started it on the timeline (default: the team's name).
`monitor_id` or `heartbeat_id` (at most one) must name the team's own object, else 422;
when that object already has an open incident the answer is 409. `metadata` maps keys to
lists of strings."""


incident_routes = Routes(router, IncidentAttributes)


_find = Finder(service.get_incident, rendering.INCIDENT, "incident_id")


@incident_routes.create(
    "",
    summary="Report an incident",
    description=CREATE_RULES,
    body=IncidentCreate,
    errors=STATE_ERRORS,
)
async def create_incident(body: JsonObject, caller: Caller, ctx: Context, db: WriteDb) -> Response:
    data = parse(IncidentCreate, body)
    async with db.begin():
        incident = await service.report_incident(
            db, team_id=caller.team_id, team_name=caller.team_name, data=data, now=ctx.clock.now()
        )
    return single(rendering.incident_resource(incident, caller.team_name), status=201)


# The filters are read as text by parse_filters (an empty value counts as absent, and every
# bad one is reported at once); the schema says what they must hold.
ID_QUERY = documented_as({"type": "integer", "minimum": 1, "maximum": INT64_MAX})
BOOLEAN_QUERY = documented_as({"type": "boolean"})


@incident_routes.list("", summary="List incidents", description=LIST_RULES)
async def list_incidents(
    caller: Caller,
    db: ReadDb,
    paging: Paging,
    monitor_id: str | None = Query(
        default=None, description="Only this monitor's incidents.", json_schema_extra=ID_QUERY
    ),
    heartbeat_id: str | None = Query(
        default=None, description="Only this heartbeat's incidents.", json_schema_extra=ID_QUERY
    ),
    resolved: str | None = Query(
        default=None, description="true or false.", json_schema_extra=BOOLEAN_QUERY
    ),
    acknowledged: str | None = Query(
        default=None, description="true or false.", json_schema_extra=BOOLEAN_QUERY
    ),
    from_: str | None = Query(
        default=None, alias="from", description="Started at or after (date or datetime)."
    ),
    to: str | None = Query(default=None, description="Started at or before (date or datetime)."),
) -> Response:
    filters = parse_filters(
        monitor_id=monitor_id,
        heartbeat_id=heartbeat_id,
        resolved=resolved,
        acknowledged=acknowledged,
        from_=from_,
        to=to,
    )
    page = await lists.list_incidents(
        db, team_id=caller.team_id, team_name=caller.team_name, filters=filters, paging=paging
    )
    return listing(page.data, page.links)


@incident_routes.get("/{incident_id}", summary="Get an incident")
async def get_incident(incident_id: str, caller: Caller, db: ReadDb) -> Response:
    incident = await _find(db, caller, incident_id)
    return single(rendering.incident_resource(incident, caller.team_name))


@incident_routes.delete("/{incident_id}", summary="Delete an incident and its timeline")
async def delete_incident(incident_id: str, write: Writer) -> Response:
    return await _find.delete(
        write,
        incident_id,
        lambda write, incident: service.delete_incident(write.session, incident=incident),
    )


async def _change(
    incident_id: int,
    change: Change,
    by: str | None,
    caller: Principal,
    ctx: AppContext,
    db: AsyncSession,
) -> Response:
    """The team's incident after `change` by `by` (default: the team's name)."""
    async with db.begin():
        incident = await service.get_incident(db, team_id=caller.team_id, incident_id=incident_id)
        await apply(db, incident, change, at=ctx.clock.now(), by=by or caller.team_name)
    return single(rendering.incident_resource(incident, caller.team_name))


def _change_route(
    verb: str,
    change: Change,
    model: type[B],
    by: Callable[[B], str | None],
    *,
    summary: str,
    description: str,
) -> None:
    """POST /{incident_id}/<verb>: the incident after `change`, by whom the body names."""

    async def endpoint(
        incident_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
    ) -> Response:
        iid = object_id(incident_id, rendering.INCIDENT)
        data = parse(model, body)
        return await _change(iid, change, by(data), caller, ctx, db)

    endpoint.__name__ = f"{verb}_incident"
    incident_routes.action(
        f"/{{incident_id}}/{verb}",
        summary=summary,
        description=description,
        body=model,
        errors=STATE_ERRORS,
    )(endpoint)


_change_route(
    "acknowledge",
    Change.ACKNOWLEDGED,
    AcknowledgeBody,
    lambda data: data.acknowledged_by,
    summary="Acknowledge an incident",
    description=(
        "Someone is on it. The body is optional; `acknowledged_by` defaults to the team's "
        "name. 409 when the incident is already acknowledged or resolved."
    ),
)
_change_route(
    "resolve",
    Change.RESOLVED,
    ResolveBody,
    lambda data: data.resolved_by,
    summary="Resolve an incident",
    description=(
        "Close the incident, acknowledged or not (an unacknowledged one stays without "
        "`acknowledged_at`). The body is optional; `resolved_by` defaults to the team's name. "
        "409 when the incident is already resolved."
    ),
)


@incident_routes.action(
    "/{incident_id}/reopen",
    summary="Reopen a resolved incident",
    description=(
        "The problem is back: the incident is open again, unacknowledged (`status` `started`), "
        "and its people, webhooks (`on_incident_reopened`) and escalation policy hear of it "
        "as of a start. The body is optional; `reopened_by` defaults to the team's name. 409 "
        "when the incident is open, or when its monitor or heartbeat has another open incident."
    ),
    body=ReopenBody,
    errors=STATE_ERRORS,
)
async def reopen_incident(
    incident_id: str, body: JsonObject, caller: Caller, ctx: Context, db: WriteDb
) -> Response:
    data = parse(ReopenBody, body)
    async with db.begin():
        incident = await _find(db, caller, incident_id)
        await comments.reopen(
            db, incident, by=data.reopened_by or caller.team_name, now=ctx.clock.now()
        )
    return single(rendering.incident_resource(incident, caller.team_name))


# ------------------------------------------------------------------------- comments


OnIncident = Within[Incident]
"""A comment's route at work within its incident."""


class Comments:
    """An incident's comments (http/children.py). A write locks the incident: a new comment
    is counted against the bound under that lock."""

    PATH, KEY = "/{incident_id}/comments", "comment_id"
    NOUN, PLURAL, TYPE = "comment", "comments", comments.COMMENT

    async def parent(
        self, db: AsyncSession, caller: Principal, ids: PathIds, now: datetime, *, lock: bool
    ) -> Incident:
        incident_id = object_id(ids[0], rendering.INCIDENT)
        return await service.get_incident(
            db, team_id=caller.team_id, incident_id=incident_id, lock=lock
        )

    async def get(self, at: OnIncident, comment_id: int, /) -> IncidentComment:
        return await comments.get_comment(
            at.db, team_id=at.caller.team_id, incident_id=at.parent.id, comment_id=comment_id
        )

    async def answer(self, at: OnIncident, comment: IncidentComment, status: int, /) -> Response:
        return single(comments.comment_resource(comment), status=status)

    async def all_listed(self, at: OnIncident, url: str) -> Response:
        """All the incident's comments: one page, as the hosted API answers them."""
        found = await comments.comments_of(at.db, at.parent)
        whole: dict[str, str | None] = {"first": url, "last": url, "prev": None, "next": None}
        return listing((comments.comment_resource(c) for c in found), whole)

    async def make(self, at: OnIncident, data: CommentCreate) -> IncidentComment:
        by = at.caller.team_name
        return await comments.add_comment(at.db, at.parent, content=data.content, by=by, now=at.now)

    async def change(self, at: OnIncident, comment: IncidentComment, data: CommentUpdate) -> None:
        comment.content, comment.updated_at = data.content, at.now

    async def remove(self, at: OnIncident, comment: IncidentComment) -> None:
        await at.db.delete(comment)


COMMENTS = Comments()
comment_routes = Children(Routes(router, CommentAttributes), COMMENTS)
comment_routes.list_all(
    COMMENTS.all_listed,
    summary="An incident's comments",
    description=(
        f"All of them (at most {comments.MAX_COMMENTS} an incident), oldest first, type "
        "`incident_comment`: `content`, `user_id` and `user_email` (null for comments made "
        "with an API token or by an escalation policy), `created_at`, `updated_at`. Not "
        "paginated, as the hosted API."
    ),
)
comment_routes.create(
    CommentCreate,
    summary="Comment on an incident",
    description=(
        "Adds the comment (Markdown `content`) and a `comment` entry to the incident's "
        "timeline, and tells webhooks with `on_incident_comment` (the payload carries "
        "`comment` beside `data`). Open or resolved incidents alike."
    ),
)
comment_routes.get(summary="Get a comment")
comment_routes.update(
    CommentUpdate,
    not_null=("content",),
    summary="Edit a comment",
    description="The comment's `content` changes; the timeline keeps what was first said.",
)
comment_routes.delete(summary="Delete a comment")


told_routes = Routes(router, DeliveryAttributes)


@told_routes.list(
    "/{incident_id}/deliveries",
    summary="Whom an incident was told to",
    description=(
        "The deliveries of the incident's events (`outgoing_webhook_delivery`), in the order "
        "they were made: each webhook, e-mail, SMS, call and notification channel it went "
        "to, with its state and last outcome (why nothing was sent, where nothing was)."
    ),
    errors=CHILD_LIST_ERRORS,
)
async def incident_deliveries(
    incident_id: str, caller: Caller, db: ReadDb, paging: Paging
) -> Response:
    incident = await _find(db, caller, incident_id)
    page = await deliveries.list_told(
        db, subject_type=INCIDENT, subject_id=incident.id, team_id=caller.team_id, paging=paging
    )
    return listing((deliveries.delivery_resource(*row) for row in page.data), page.links)


timeline_routes = Routes(router, TimelineItemAttributes)


@timeline_routes.list(
    "/{incident_id}/timeline",
    summary="An incident's timeline",
    description=(
        "Items of type `incident_timeline_item`, oldest first: `at`, `kind` (started, "
        "acknowledged, resolved; the check engine adds more), `text`, `by` (who, or null)."
    ),
    errors=CHILD_LIST_ERRORS,
)
async def incident_timeline(
    incident_id: str, caller: Caller, db: ReadDb, paging: Paging
) -> Response:
    incident = await _find(db, caller, incident_id)
    page = await lists.list_timeline(db, incident=incident, paging=paging)
    return listing(page.data, page.links)


# What routes.py serves: this module's routers, each listed flat in the app.
routers = (router,)
