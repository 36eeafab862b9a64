"""`POST /bulk`: the overview's bulk actions: pause, resume or delete the selected monitors,
heartbeats and collector targets at once.

The form names each one as `item=monitor:12` (repeated), or says `all_matching=1`: every row
the overview's filter (the other fields) matches, read again when the action runs. Without `confirm=yes` the answer
is a page asking "Pause 12 monitors and heartbeats?" with a button that posts the same form
again, confirmed. Every id must be the team's (else 404 and nothing changed), and all the
changes are one transaction. Then back to the overview with its filters (every other
field posted is the overview's query) and "Paused 12".
"""

from __future__ import annotations

from collections import defaultdict
from typing import Final
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import FormData

from watchpost.console import operations
from watchpost.console.auth import checked_form, write_db
from watchpost.console.confirming import confirm_page, confirmed
from watchpost.console.details import NEEDS, actor
from watchpost.console.errors import error_page
from watchpost.console.notices import done_query
from watchpost.console.operations import Kind, Operation
from watchpost.console.overview_data import all_matching_ids, parse_filter
from watchpost.console.signed_routes import Signed, console_router
from watchpost.errors import InvalidRequest, NotFound
from watchpost.writing import Writing

router = console_router()

ACTIONS: Final[dict[str, Operation]] = {"pause": "pause", "resume": "resume", "delete": "delete"}
OWN_FIELDS: Final = frozenset({"csrf", "action", "item", "confirm", "all_matching", "list"})
LIST_PATHS: Final = frozenset({"/", "/monitors", "/heartbeats"})
"""Where the list a bulk action came from may be; the answer goes back there."""
"""The bulk form's own fields; every other field is the overview's filter, kept."""
MAX_ID: Final = 2**63 - 1


def parse_items(values: list[str]) -> dict[Kind, list[int]]:
    """`kind:id` values by kind; anything else names nothing (a 404, nothing changed)."""
    found: dict[Kind, list[int]] = defaultdict(list)
    for value in values:
        kind, _, raw = value.partition(":")
        if kind not in operations.MODELS or not raw.isascii() or not raw.isdigit():
            raise NotFound("item", value[:40])
        number = int(raw[:20])
        if not 0 < number <= MAX_ID:
            raise NotFound("item", value[:40])
        found[kind].append(number)
    return {kind: sorted(set(ids)) for kind, ids in found.items()}


def what(items: dict[Kind, list[int]]) -> str:
    """ "12 monitors and heartbeats", "1 collector target"."""
    count = sum(len(ids) for ids in items.values())
    kinds = [kind for kind in operations.MODELS if items.get(kind)]
    names = [operations.KIND_NAMES[kind] for kind in kinds]
    words = [n.singular if count == 1 else n.plural for n in names]
    named = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return f"{count} {named}"


def overview_query(form: FormData) -> list[tuple[str, str]]:
    return [
        (name, str(value))
        for name, value in form.multi_items()
        if name not in OWN_FIELDS and name not in ("done", "n") and isinstance(value, str)
    ]


@router.post("/bulk")
async def bulk(request: Request, who: Signed) -> Response:
    form = await checked_form(request, who)
    operation = ACTIONS.get(str(form.get("action", "")))
    if operation is None:
        return error_page(request, 400, "Not possible", "Choose pause, resume or delete.")
    who.require(NEEDS[operation])
    kept = overview_query(form)
    came_from = str(form.get("list", "/"))
    came_from = came_from if came_from in LIST_PATHS else "/"
    back = came_from + (f"?{urlencode(kept)}" if kept else "")
    every = bool(form.get("all_matching"))
    items = {} if every else parse_items([str(value) for value in form.getlist("item")])
    if not items and not every:
        return error_page(request, 400, "Nothing selected", "Select at least one row.")
    db = await write_db(request)
    write = Writing.of(db, who, request.app.state.ctx)
    try:
        async with db.begin():  # rolled back whole if any change is refused
            if every:  # every row the overview's filter matches, read in this transaction
                query: dict[str, list[str]] = {}
                for name, value in kept:
                    query.setdefault(name, []).append(value)
                matching = await all_matching_ids(
                    db, team_id=who.team_id, flt=parse_filter(query), now=write.now
                )
                items = {
                    kind: ids
                    for kind, ids in matching.items()
                    if ids and kind in operations.KIND_NAMES
                }
                if not items:
                    return error_page(request, 400, "Nothing selected", "Nothing matches.")
            loaded = {
                kind: await operations.load(db, team_id=who.team_id, kind=kind, ids=ids)
                for kind, ids in items.items()
            }
            if not confirmed(form):
                verb = operation.capitalize()
                fields = [("action", operation)] + (
                    [("all_matching", "1")]
                    if every
                    else [
                        ("item", f"{kind}:{item_id}")
                        for kind, ids in items.items()
                        for item_id in ids
                    ]
                )
                return confirm_page(
                    request,
                    who,
                    section="overview",
                    question=f"{verb} {what(items)}?",
                    detail=BULK_DETAILS[operation],
                    action="/bulk",
                    button=f"{verb} {what(items)}",
                    fields=[*fields, ("list", came_from), *kept],
                    back=back,
                )
            done = 0
            who_did = actor(request, who)
            for kind, found in loaded.items():
                for item in found:
                    done += await operations.apply(
                        write, kind=kind, item=item, operation=operation, actor=who_did
                    )
    except InvalidRequest as exc:
        return error_page(request, 422, "Not possible", f"Nothing was changed: {exc}")
    code = {"pause": "paused", "resume": "resumed", "delete": "deleted"}[operation]
    separator = "&" if "?" in back else "?"
    return RedirectResponse(f"{back}{separator}{done_query(code, done)}", status_code=303)


BULK_DETAILS: Final[dict[Operation, str]] = {
    "pause": "Paused ones are not checked and raise no alerts until resumed.",
    "resume": "They are checked again from now on.",
    "delete": "Their history goes with them; their incidents stay, open ones are resolved. "
    "This cannot be undone.",
    "check": "",
}
