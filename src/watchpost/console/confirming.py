"""The server's own "are you sure?" page, for every console action that deletes, removes or
revokes: shown when the form arrives without `confirm=yes` (JavaScript off, or a POST from
elsewhere), it posts the same action again with the same hidden fields and `confirm=yes`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.account import audit
from watchpost.console.auth import Viewer, permitted_form, write_db
from watchpost.console.web import render
from watchpost.people.roles import Action

Row = TypeVar("Row")


def confirmed(form: Any) -> bool:
    """Whether the form carries the confirmation."""
    return str(form.get("confirm", "")) == "yes"


def confirm_page(
    request: Request,
    who: Viewer,
    *,
    section: str,
    question: str,
    detail: str,
    action: str,
    button: str,
    back: str,
    fields: Sequence[tuple[str, str]] = (),
    title: str | None = None,
) -> Response:
    """The page asking `question` (its heading; `title` names the browser tab when given),
    `detail` beneath it, a button labelled `button` posting to `action` and a Cancel link
    to `back`; `section` is the navigation's current section."""
    return render(
        request,
        "confirm.html",
        viewer=who,
        section=section,
        title=title or question,
        question=question,
        detail=detail,
        action=action,
        button=button,
        fields=list(fields),
        back=back,
    )


@dataclass(frozen=True)
class Asking:
    """What confirm_page says about one object (its arguments but the request, viewer and
    section)."""

    question: str
    detail: str
    action: str
    button: str
    back: str
    title: str | None = None
    fields: Sequence[tuple[str, str]] = ()


async def delete_confirmed(
    request: Request,
    who: Viewer,
    section: str,
    *,
    find: Callable[[AsyncSession], Awaitable[Row]],
    ask: Callable[[Row], Asking],
    remove: Callable[[AsyncSession, Row], Awaitable[object]],
    done: str | Callable[[Row], str],
    needs: Action = Action.EDIT,
) -> Response:
    """The POST of a confirmed deletion: the form's CSRF token and who's `needs` checked,
    the object found in the write session (`find` raises for another team's), then the
    confirmation page (`ask`) when the form lacks `confirm=yes`, else `remove` (the domain's
    delete and the audit entry) in the same transaction and a 303 to `done`."""
    form = await permitted_form(request, who, needs)
    db = await write_db(request)
    async with db.begin():
        row = await find(db)
        if not confirmed(form):
            return confirm_page(request, who, section=section, **vars(ask(row)))
        await remove(db, row)
    return RedirectResponse(done if isinstance(done, str) else done(row), status_code=303)


def audited(
    request: Request,
    who: Viewer,
    subject_type: str,
    remove: Callable[[AsyncSession, Any], Awaitable[object]],
) -> Callable[[AsyncSession, Any], Awaitable[None]]:
    """A delete_confirmed `remove`: remove, then the audit entry `{subject_type}.deleted`
    naming the object removed (its id and name)."""
    now = request.app.state.ctx.clock.now()

    async def removed(db: AsyncSession, row: Any) -> None:
        name, removed_id = row.name, row.id
        await remove(db, row)
        await audit(
            db, request, who, f"{subject_type}.deleted", now, (subject_type, removed_id, name)
        )

    return removed
