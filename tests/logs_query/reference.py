"""The contract's search semantics in plain Python, over the query language's matcher: the
reference the engines' answers (through the API) are compared with."""

from __future__ import annotations

from collections.abc import Sequence

from watchpost.logs.events import LogEvent, StoredEvent
from watchpost.logs.query_language import matches
from watchpost.logs.store import MAX_LIMIT, Search


def reference_search(events: Sequence[LogEvent], search: Search) -> list[StoredEvent]:
    chosen = [
        event
        for event in events
        if event.source_id in search.source_ids
        and matches(search.terms, event.message, event.attributes)
        and (search.since is None or event.dt >= search.since)
        and (search.until is None or event.dt < search.until)
    ]
    limit = min(search.limit, MAX_LIMIT)
    if search.after_id is not None:
        after = search.after_id
        chosen = sorted((e for e in chosen if e.id > after), key=lambda e: e.id)
    else:
        chosen.sort(key=lambda e: (e.dt, e.id), reverse=search.newest_first)
        if search.before is not None:
            at = search.before
            if search.newest_first:
                chosen = [e for e in chosen if (e.dt, e.id) < at]
            else:
                chosen = [e for e in chosen if (e.dt, e.id) > at]
    return [StoredEvent(e.id, e.source_id, e.dt, e.raw) for e in chosen[:limit]]
