"""The server's own "are you sure?" page, for every console action that deletes, removes or
revokes: shown when the form arrives without `confirm=yes` (JavaScript off, or a POST from
elsewhere), it posts the same action again with the same hidden fields and `confirm=yes`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import Request
from fastapi.responses import Response

from watchpost.console.auth import Viewer
from watchpost.console.web import render


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
