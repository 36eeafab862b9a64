"""/sources: the team's log sources. Listed a page at a time (in SQL), created with a name
and platform (the source's token is on the answer page once, with ready-to-paste examples
for curl, logtail-python, Vector and the OpenTelemetry Collector naming this server's
ingest address; never again afterwards), its retention changed, deleted after a
confirmation. Every change goes through sources/service.py, as the API's does, with an
audit entry. Reading needs any role; changing needs Action.EDIT (admins)."""

from __future__ import annotations

from typing import Any, Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.account import audit
from watchpost.console.auth import Viewer, posted_writing, read_db
from watchpost.console.confirming import Asking, delete_confirmed
from watchpost.console.notices import done_query
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.sources_examples import examples
from watchpost.console.web import form_page, render
from watchpost.errors import InvalidRequest
from watchpost.http.deps import request_sessions
from watchpost.people.roles import Action
from watchpost.sources import service
from watchpost.sources.models import Source
from watchpost.sources.platforms import DEFAULT_LOGS_RETENTION, DEFAULT_METRICS_RETENTION, PLATFORMS
from watchpost.validation import object_id

router = console_router()
PER_PAGE: Final = 50
RETENTION_FIELDS: Final = ("logs_retention", "metrics_retention")


def page_number(raw: str | None) -> int:
    """?page=N (1 when absent or not a small positive number)."""
    text = (raw or "").strip()
    return int(text) if text.isascii() and text.isdigit() and 0 < len(text) < 7 and int(text) else 1


def problems_by_field(error: InvalidRequest) -> dict[str, str]:
    """The domain's problems as {form field: message} (the first message of each field)."""
    found: dict[str, str] = {}
    for name, message in error.problems:
        found.setdefault(name or "name", message[0].upper() + message[1:] if message else "")
    return found


def _whole_number(form: Any, name: str) -> int | str:
    """A number field as an int when it is one, else the text typed (the domain refuses it)."""
    text = str(form.get(name, "")).strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) < 12 else text


def ingest_address(request: Request) -> service.Ingesting:
    return service.ingesting(request.app.state.ctx.settings, request.url.scheme, request.url.netloc)


@router.get("/sources")
async def list_page(request: Request, who: Signed) -> Response:
    who.require(Action.READ)
    page = page_number(request.query_params.get("page"))
    db = await request_sessions(request).read()
    rows = list(
        await db.scalars(
            select(Source)
            .where(Source.team_id == who.team_id)
            .order_by(Source.id)
            .offset((page - 1) * PER_PAGE)
            .limit(PER_PAGE + 1)
        )
    )
    total = await db.scalar(select(func.count()).where(Source.team_id == who.team_id)) or 0
    return render(
        request,
        "sources.html",
        viewer=who,
        section="sources",
        sources=rows[:PER_PAGE],
        page=page,
        more=len(rows) > PER_PAGE,
        total=total,
        ingest=ingest_address(request),
    )


def _new_page(
    request: Request, who: Viewer, *, values: dict[str, Any], errors: dict[str, str] | None = None
) -> Response:
    return form_page(
        request,
        "source_new.html",
        who,
        errors=errors,
        section="sources",
        platforms=PLATFORMS,
        values=values,
    )


NEW_DEFAULTS: Final[dict[str, Any]] = {
    "name": "",
    "platform": "http",
    "logs_retention": DEFAULT_LOGS_RETENTION,
    "metrics_retention": DEFAULT_METRICS_RETENTION,
}


@router.get("/sources/new")
async def new_page(request: Request, who: Signed) -> Response:
    who.require(Action.EDIT)
    return _new_page(request, who, values=dict(NEW_DEFAULTS))


@router.post("/sources")
async def create(request: Request, who: Signed) -> Response:
    form, write = await posted_writing(request, who, Action.EDIT)
    body: dict[str, Any] = {
        "name": " ".join(str(form.get("name", "")).split()),
        "platform": str(form.get("platform", "")),
        **{name: _whole_number(form, name) for name in RETENTION_FIELDS},
    }
    try:
        async with write.session.begin():
            source = await service.create_from_body(write, body)
            token = write.box.decrypt(source.token_encrypted)
            await audit(
                write.session,
                request,
                who,
                "source.created",
                write.now,
                ("source", source.id, source.name),
                {"platform": source.platform},
            )
    except InvalidRequest as error:
        return _new_page(request, who, values=body, errors=problems_by_field(error))
    to = ingest_address(request)
    return render(
        request,
        "source_created.html",
        viewer=who,
        section="sources",
        source=source,
        token=token,
        ingest=to,
        examples=examples(to.url, token),
    )


async def _source(request: Request, who: Viewer, source_id: str, db: Any) -> Source:
    return await service.get_source(
        db, team_id=who.team_id, source_id=object_id(source_id, "source")
    )


def _source_page(
    request: Request,
    who: Viewer,
    source: Source,
    *,
    values: dict[str, Any] | None = None,
    errors: dict[str, str] | None = None,
) -> Response:
    to = ingest_address(request)
    return form_page(
        request,
        "source.html",
        who,
        errors=errors,
        section="sources",
        source=source,
        ingest=to,
        examples=examples(to.url, None),
        values=values or {name: getattr(source, name) for name in RETENTION_FIELDS},
    )


@router.get("/sources/{source_id}")
async def source_page(request: Request, who: Signed, source_id: str) -> Response:
    db = await read_db(request, who, Action.READ)
    return _source_page(request, who, await _source(request, who, source_id, db))


@router.post("/sources/{source_id}")
async def edit(request: Request, who: Signed, source_id: str) -> Response:
    form, write = await posted_writing(request, who, Action.EDIT)
    body = {name: _whole_number(form, name) for name in RETENTION_FIELDS}
    async with write.session.begin():
        source = await _source(request, who, source_id, write.session)
        before = {name: getattr(source, name) for name in RETENTION_FIELDS}
        try:
            await service.update_from_body(write, source, body)
        except InvalidRequest as error:  # the source is unchanged
            return _source_page(request, who, source, values=body, errors=problems_by_field(error))
        changed = {
            name: [before[name], getattr(source, name)]
            for name in RETENTION_FIELDS
            if before[name] != getattr(source, name)
        }
        if changed:
            await audit(
                write.session,
                request,
                who,
                "source.updated",
                write.now,
                ("source", source.id, source.name),
                changed,
            )
    return RedirectResponse(f"/sources/{source.id}?saved=1", status_code=303)


@router.post("/sources/{source_id}/delete")
async def delete(request: Request, who: Signed, source_id: str) -> Response:
    now = request.app.state.ctx.clock.now()

    async def remove(db: AsyncSession, source: Source) -> None:
        await audit(db, request, who, "source.deleted", now, ("source", source.id, source.name))
        await service.delete_source(db, source=source)

    return await delete_confirmed(
        request,
        who,
        "sources",
        find=lambda db: _source(request, who, source_id, db),
        ask=lambda source: Asking(
            question="Delete a source",
            detail=(
                f"Delete the source {source.name}? Its token stops working at once and "
                "its logs are no longer searchable."
            ),
            action=f"/sources/{source.id}/delete",
            button="Delete the source",
            back=f"/sources/{source.id}",
        ),
        remove=remove,
        done=f"/sources?{done_query('deleted')}",
    )
