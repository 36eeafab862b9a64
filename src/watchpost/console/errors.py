"""How the console answers what goes wrong: HTML pages, never the API's JSON.

Console routes are ConsoleRoute: the domain's errors (a 404 for another team's object, a
422) and the console's own (sign-in needed, refused) become pages or redirects here."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from fastapi.routing import APIRoute

from watchpost.console.auth import (
    NoTeam,
    Refused,
    SecondFactorNeeded,
    SignInNeeded,
    TwoFactorRequired,
    login_redirect,
)
from watchpost.console.web import render
from watchpost.errors import ApiError, InvalidRequest, TooManyRequests


def error_page(request: Request, status: int, title: str, message: str, **extra: Any) -> Response:
    response = render(request, "error.html", status=status, title=title, message=message)
    for name, value in extra.items():
        response.headers[name] = value
    return response


def answer(request: Request, exc: Exception) -> Response | None:
    """The console's answer to exc, or None when it is not one of the console's."""
    if isinstance(exc, SignInNeeded):
        return RedirectResponse(login_redirect(request), status_code=303)
    if isinstance(exc, SecondFactorNeeded):
        return RedirectResponse("/login/two-factor", status_code=303)
    if isinstance(exc, TwoFactorRequired):
        return RedirectResponse("/account?two-factor=required#two-factor", status_code=303)
    if isinstance(exc, NoTeam):
        return error_page(
            request,
            403,
            "No team",
            "You are not a member of any team. Ask a team's admin to invite you.",
        )
    if isinstance(exc, Refused):
        return error_page(request, 403, "Not allowed", exc.message)
    if isinstance(exc, TooManyRequests):
        return error_page(
            request,
            429,
            "Too many attempts",
            "Too many attempts. Wait a minute and try again.",
            **(exc.headers or {}),
        )
    if isinstance(exc, ApiError):
        if exc.status == 404:
            return error_page(request, 404, "Not found", "There is nothing here.")
        return error_page(request, exc.status, "Not possible", exc.message)
    if isinstance(exc, InvalidRequest):  # one a form did not catch to show beside its field
        return error_page(request, exc.status, "Not possible", str(exc))
    return None


class ConsoleRoute(APIRoute):
    """A route whose errors are answered as pages."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            try:
                return await handler(request)
            except Exception as exc:
                found = answer(request, exc)
                if found is None:
                    raise
                return found

        return handle
