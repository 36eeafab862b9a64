"""The public routes of subscriptions: signing up on a page, confirming, unsubscribing.

`POST /status/{subdomain}/subscribe` (a form: `email` or `webhook_url`, optional
`resource_ids`) answers the same page whatever the address's standing; it needs what seeing
the page needs (published, the allowlist, the password cookie) and the page's
`subscribable`, else 404. The links of the mails carry their own authority (tokens.py): a GET
shows a page with a button, only its POST confirms or unsubscribes (mail scanners fetch
links), and the unsubscribe URL takes RFC 8058's one-click POST as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.types import DecoratedCallable

from watchpost.errors import InvalidRequest
from watchpost.http.body import form_fields
from watchpost.http.crud import Errors
from watchpost.http.deps import Context, ReadDb, WriteDb
from watchpost.http.openapi import ERROR_RESPONSES, ValidationErrorBody
from watchpost.http.ratelimit import limit_by_address
from watchpost.status_pages.models import StatusPage
from watchpost.subscriptions import limits, service, tokens, visitor
from watchpost.subscriptions.pages import page

router = APIRouter(tags=["status page subscriptions"], dependencies=[Depends(limit_by_address)])
SECRET_PATH_PREFIXES = (tokens.CONFIRM_PATH, tokens.UNSUBSCRIBE_PATH)
"""The segment after these is a token: logs mask it (http/logs.py)."""

MAX_FORM_BYTES: Final = 16 * 1024
FORM_TYPE: Final = "application/x-www-form-urlencoded"
NOT_VALID: Final = "This link is not valid any more."


def _html(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"text/html": {"schema": {"type": "string"}}}}


def _json_error(description: str) -> dict[str, Any]:
    return {"model": ValidationErrorBody, "description": description}


NOT_SEEN: Final[Errors] = {
    401: _html("The page's password form: the visitor has no session cookie"),
    403: _html("The client's address is not in the page's IP allowlist"),
    404: _html("No such page, or not subscribable"),
}
"""The answers instead of a page the visitor may not see (visitor.open_subscribable)."""

FORM_BODY: Final = {
    "requestBody": {
        "required": True,
        "content": {
            FORM_TYPE: {
                "schema": {
                    "type": "object",
                    "properties": {
                        "email": {"type": "string", "maxLength": service.MAX_EMAIL},
                        "webhook_url": {"type": "string", "maxLength": service.MAX_URL},
                        "resource_ids": {"type": "array", "items": {"type": "string"}},
                    },
                }
            }
        },
    }
}


async def _body(request: Request) -> bytes:
    """The body, at most MAX_FORM_BYTES (read before the write transaction opens)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise InvalidRequest([(None, "the form is too large")], status=413)
    return body


def _link_route(
    declare: Callable[..., Callable[[DecoratedCallable], DecoratedCallable]],
    link_path: str,
    summary: str,
    shown: str,
) -> Callable[[DecoratedCallable], DecoratedCallable]:
    """A route of a link mailed to a subscriber (`declare`: router.get or router.post): an
    HTML page, `shown` when the token is valid, else 404."""
    return declare(
        link_path + "{token}",
        summary=summary,
        response_class=HTMLResponse,
        responses={200: _html(shown), 404: _html("Not a valid link")},
    )


def _form(request: Request, body: bytes) -> dict[str, list[str]]:
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != FORM_TYPE:
        raise InvalidRequest([(None, f"the body must be a form ({FORM_TYPE})")], status=415)
    try:
        text = body.decode()
    except UnicodeDecodeError:
        raise InvalidRequest([(None, "the form is not valid UTF-8 form data")]) from None
    return form_fields(text, max_fields=200)


@router.head("/status/{subdomain}/subscribe", include_in_schema=False)
@router.get(
    "/status/{subdomain}/subscribe",
    summary="The sign-up form of a status page",
    response_class=HTMLResponse,
    responses={200: _html("The form"), **NOT_SEEN},
)
async def sign_up_form(subdomain: str, request: Request, db: ReadDb) -> Response:
    found = await visitor.open_subscribable(request, db, subdomain)
    if not isinstance(found, StatusPage):
        return found
    return page("Subscribe to updates", company=found.company_name, form_action="subscribe")


@router.post(
    "/status/{subdomain}/subscribe",
    summary="Subscribe to a status page by e-mail or webhook",
    description="Form fields: `email` or `webhook_url`, and `resource_ids` (repeated or "
    "comma-separated) to hear only of reports naming those resources. The answer is the "
    "same whether the address was subscribed already or not; a confirmation is sent "
    "(a webhook's answer shows the key its deliveries will be signed with).",
    response_class=HTMLResponse,
    responses={
        200: _html("Signed up: a confirmation is on its way"),
        **NOT_SEEN,
        409: _json_error("The page holds as many subscribers as it may"),
        413: _json_error("The form is larger than 16 KiB"),
        415: _json_error("The body is not a form"),
        422: _json_error("No e-mail address or webhook URL, or a wrong one"),
        429: ERROR_RESPONSES[429],
    },
    openapi_extra=FORM_BODY,
)
async def subscribe(subdomain: str, request: Request, ctx: Context, db: WriteDb) -> Response:
    body = await _body(request)
    async with db.begin():
        found = await visitor.open_subscribable(request, db, subdomain, lock=True)
        if not isinstance(found, StatusPage):
            return found
        limits.check_address(request, ctx)
        limits.check_page(ctx, found.id)
        sign_up = service.parse_sign_up(_form(request, body))
        secret = await service.subscribe(
            db,
            page=found,
            sign_up=sign_up,
            box=ctx.box,
            now=ctx.clock.now(),
            max_subscribers=ctx.settings.max_subscribers_per_page,
        )
        company = found.company_name
    if secret is None:
        return page(
            "Check your inbox",
            company=company,
            message="If this address can be subscribed, a confirmation e-mail is on its way. "
            "Follow its link to start receiving updates.",
        )
    return page(
        "Confirm at your endpoint",
        company=company,
        message="A confirmation request was sent to the webhook URL. POST to its "
        "confirm_url to start receiving updates. Deliveries are signed (Standard Webhooks) "
        "with this key, shown once:",
        secret=secret,
    )


@_link_route(
    router.get, tokens.CONFIRM_PATH, "The page of a subscription's confirmation link", "The page"
)
async def confirm_page(token: str, ctx: Context, db: ReadDb) -> Response:
    row = await service.confirm(db, box=ctx.box, token=token, now=ctx.clock.now(), lock=False)
    if row is None:
        return page("Link not valid", status=404, message=NOT_VALID)
    return page("Confirm your subscription?", form_action="", button="Confirm")


@_link_route(router.post, tokens.CONFIRM_PATH, "Confirm a subscription", "Confirmed")
async def confirm(token: str, ctx: Context, db: WriteDb) -> Response:
    async with db.begin():
        row = await service.confirm(db, box=ctx.box, token=token, now=ctx.clock.now(), lock=True)
    if row is None:
        return page("Link not valid", status=404, message=NOT_VALID)
    return page("Subscribed", message="You will receive this status page's updates.")


@_link_route(router.get, tokens.UNSUBSCRIBE_PATH, "The page of an unsubscribe link", "The page")
async def unsubscribe_page(token: str, ctx: Context, db: ReadDb) -> Response:
    valid, row = await service.by_unsubscribe_token(db, box=ctx.box, token=token)
    if not valid:
        return page("Link not valid", status=404, message=NOT_VALID)
    if row is None:
        return page("Unsubscribed", message="This subscription has ended.")
    return page("Unsubscribe?", form_action="", button="Unsubscribe")


@_link_route(
    router.post, tokens.UNSUBSCRIBE_PATH, "Unsubscribe (also RFC 8058 one-click)", "Unsubscribed"
)
async def unsubscribe(token: str, ctx: Context, db: WriteDb) -> Response:
    async with db.begin():
        valid, row = await service.by_unsubscribe_token(db, box=ctx.box, token=token)
        if row is not None:
            await service.remove(db, row.id)
    if not valid:
        return page("Link not valid", status=404, message=NOT_VALID)
    return page("Unsubscribed", message="You will receive no more updates.")


routers = (router,)
