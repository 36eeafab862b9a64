"""What sources do: create, read, change, delete. No HTTP in here."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import SecretBox, hash_token, random_token
from watchpost.db import queries
from watchpost.db.queries import team_object
from watchpost.errors import InvalidRequest, Problem
from watchpost.settings import Settings
from watchpost.sources import hosted
from watchpost.sources.models import Source, SourceGroup
from watchpost.sources.platforms import (
    TABLE_NAME_FALLBACK,
    TABLE_NAME_MAX,
    UPDATABLE_FIELDS,
)
from watchpost.sources.schemas import (
    SourceCreate,
    SourceUpdate,
    parse_source_create,
    parse_source_update,
)
from watchpost.writing import Writing

SOURCE = "source"

TOKEN_PREFIX = "wps_"  # noqa: S105  (a public prefix, not a secret)
TOKEN_BYTES = 32
_CREATE_ATTEMPTS = 5
_CANDIDATE_BATCH = 20


class Ingesting(NamedTuple):
    """Where a source's clients send: `host` as the hosted API shows it (`host[:port]`, no
    scheme), `url` with the scheme, for clients that would otherwise guess one
    (logtail-python takes a bare host as https)."""

    host: str
    url: str


def ingesting(settings: Settings, request_scheme: str, request_host: str | None) -> Ingesting:
    """The configured ingesting host, else the public URL's, else the request's (`request_host`
    is its `host[:port]`). A port other than the scheme's default is kept: a client can send
    to the address as it is. The scheme: WATCHPOST_INGESTING_HOST's own when it is a URL,
    else the public URL's, else the request's."""
    public = urlsplit(settings.public_base) if settings.public_base is not None else None
    scheme = public.scheme if public is not None and public.scheme else request_scheme
    if configured := settings.ingesting_host:
        if "://" in configured:
            url = urlsplit(configured.rstrip("/"))
            return Ingesting(url.netloc, f"{url.scheme}://{url.netloc}{url.path}")
        return Ingesting(configured, f"{scheme}://{configured}")
    if public is not None and public.hostname:
        host = f"[{public.hostname}]" if ":" in public.hostname else public.hostname
        host = host if public.port is None else f"{host}:{public.port}"
        return Ingesting(host, f"{scheme}://{host}{public.path}")
    host = request_host or "localhost"
    return Ingesting(host, f"{request_scheme}://{host}")


# ------------------------------------------------------------------------------- sources


def _slug(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_name.lower()).strip("_")


def table_name_candidate(team_id: int, name: str, n: int) -> str:
    """The n-th choice of table name (n >= 1): `t<team>_<slug>`, then `_2`, `_3`... within 63."""
    base = f"t{team_id}_{_slug(name) or TABLE_NAME_FALLBACK}"
    suffix = "" if n == 1 else f"_{n}"
    return base[: TABLE_NAME_MAX - len(suffix)].rstrip("_") + suffix


async def _free_table_name(session: AsyncSession, *, team_id: int, name: str) -> str:
    first = 1
    while True:
        candidates = [
            table_name_candidate(team_id, name, n) for n in range(first, first + _CANDIDATE_BATCH)
        ]
        taken = set(
            (
                await session.scalars(
                    select(Source.table_name).where(Source.table_name.in_(candidates))
                )
            ).all()
        )
        for candidate in candidates:
            if candidate not in taken:
                return candidate
        first += _CANDIDATE_BATCH


async def group_problems(
    session: AsyncSession, *, team_id: int, group_id: int | None
) -> list[Problem]:
    """The problem of a `source_group_id` naming no source group of the team (sources' and
    collectors')."""
    return await queries.group_problems(
        session, SourceGroup, "source_group_id", team_id=team_id, group_id=group_id
    )


async def create_source(
    session: AsyncSession, *, team_id: int, data: SourceCreate, box: SecretBox, now: datetime
) -> Source:
    """A new source with a fresh token and a table name of its own."""
    problems = await group_problems(session, team_id=team_id, group_id=data.source_group_id)
    if problems:
        raise InvalidRequest(problems)
    for attempt in range(_CREATE_ATTEMPTS):
        token = random_token(TOKEN_PREFIX, TOKEN_BYTES)
        source = Source(
            team_id=team_id,
            name=data.name,
            platform=data.platform,
            source_group_id=data.source_group_id,
            table_name=await _free_table_name(session, team_id=team_id, name=data.name),
            token_hash=hash_token(token),
            token_encrypted=box.encrypt(token),
            ingesting_paused=data.ingesting_paused,
            logs_retention=data.logs_retention,
            metrics_retention=data.metrics_retention,
            live_tail_pattern=data.live_tail_pattern,
            settings=hosted.merged(None, data, data.model_fields_set, box) or None,
            created_at=now,
            updated_at=now,
        )
        try:
            async with session.begin_nested():
                session.add(source)
        except IntegrityError:  # a concurrent create took the table name first: pick again
            if attempt == _CREATE_ATTEMPTS - 1:
                raise
            continue
        return source
    raise AssertionError("unreachable")


async def create_from_body(write: Writing, body: dict[str, Any]) -> Source:
    """A source from a request body, every rule checked (an InvalidRequest naming every
    problem): the one path the API and the console both create sources by."""
    data = parse_source_create(body, team_name=write.team_name)
    return await create_source(
        write.session, team_id=write.team_id, data=data, box=write.box, now=write.now
    )


async def get_source(session: AsyncSession, *, team_id: int, source_id: int) -> Source:
    return await team_object(session, Source, SOURCE, team_id=team_id, object_id=source_id)


async def update_source(
    session: AsyncSession,
    *,
    source: Source,
    data: SourceUpdate,
    sent: set[str],
    box: SecretBox,
    now: datetime,
) -> Source:
    """Apply the sent fields (validated by parse_source_update); the table name stays."""
    if "source_group_id" in sent:
        problems = await group_problems(
            session, team_id=source.team_id, group_id=data.source_group_id
        )
        if problems:
            raise InvalidRequest(problems)
    await hosted.store_changes(
        session, source, data, sent, columns=UPDATABLE_FIELDS, box=box, now=now
    )
    return source


async def update_from_body(write: Writing, source: Source, body: dict[str, Any]) -> Source:
    """A PATCH body checked against the source as it is, then stored (API and console); an
    InvalidRequest leaves the source unchanged."""
    data = parse_source_update(
        body, platform=source.platform, team_name=write.team_name, settings=source.settings
    )
    sent = set(data.model_fields_set)
    return await update_source(
        write.session, source=source, data=data, sent=sent, box=write.box, now=write.now
    )


async def delete_source(session: AsyncSession, *, source: Source) -> None:
    await session.delete(source)
    await session.flush()
