"""The actions of a webhook's page in the console (console/webhooks.py shows it): delete and
rotate the signing secret (each after a confirmation), Send test, and Retry a delivery."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.account import audit
from watchpost.console.auth import permitted_form, posted_writing, write_db
from watchpost.console.confirming import Asking, confirm_page, confirmed, delete_confirmed
from watchpost.console.notices import done_query
from watchpost.console.signed_routes import Signed, console_router
from watchpost.console.webhooks import (
    SECTION,
    _audit,
    _find,
    _webhook_page,
)
from watchpost.delivery import service as deliveries
from watchpost.people.roles import Action
from watchpost.validation import object_id
from watchpost.webhooks import service, signing
from watchpost.webhooks.models import OutgoingWebhook

router = console_router()


# ----------------------------------------------------------------------------- actions


@router.post("/webhooks/{webhook_id}/delete")
async def delete(request: Request, who: Signed, webhook_id: str) -> Response:
    async def remove(db: AsyncSession, webhook: OutgoingWebhook) -> None:
        await _audit(request, who, db, "outgoing_webhook.deleted", webhook)
        await service.delete_webhook(db, webhook=webhook)

    return await delete_confirmed(
        request,
        who,
        SECTION,
        find=lambda db: _find(db, who, webhook_id),
        ask=lambda webhook: Asking(
            question=f"Delete the webhook {webhook.name}?",
            detail="Nothing is sent to it any more, and its delivery log is deleted with it.",
            action=f"/webhooks/{webhook.id}/delete",
            back=f"/webhooks/{webhook.id}",
            button="Delete the webhook",
        ),
        remove=remove,
        done="/webhooks?" + done_query("deleted"),
    )


@router.post("/webhooks/{webhook_id}/rotate-secret")
async def rotate_secret(request: Request, who: Signed, webhook_id: str) -> Response:
    form = await permitted_form(request, who, Action.EDIT)
    ctx = request.app.state.ctx
    secret = signing.new_secret()
    db = await write_db(request)
    async with db.begin():
        webhook = await _find(db, who, webhook_id)
        if not confirmed(form):
            return confirm_page(
                request,
                who,
                section=SECTION,
                question=f"Rotate the signing secret of {webhook.name}?",
                detail="A new secret signs from now on and is shown once. For 24 hours "
                "requests carry the old secret's signature too, so the receiver can switch.",
                action=f"/webhooks/{webhook.id}/rotate-secret",
                back=f"/webhooks/{webhook.id}",
                button="Rotate the secret",
            )
        await service.rotate_secret(
            db, webhook=webhook, box=ctx.box, now=ctx.clock.now(), signing_secret=secret
        )
        await _audit(request, who, db, "outgoing_webhook.secret_rotated", webhook)
        found = webhook.id
    async with db.begin():
        return await _webhook_page(
            request, who, db, webhook_id=found, secret=secret, fresh="rotated"
        )


@router.post("/webhooks/{webhook_id}/test")
async def send_test(request: Request, who: Signed, webhook_id: str) -> Response:
    _, write = await posted_writing(request, who, Action.OPERATE)
    db = write.session
    async with db.begin():
        webhook = await _find(db, who, webhook_id)
    delivery, _ = await deliveries.send_test(write, webhook, request.app.state.ctx.settings)
    async with db.begin():
        await _audit(request, who, db, "outgoing_webhook.tested", webhook)
    return RedirectResponse(
        f"/webhooks/{webhook.id}?tested={delivery.id}#test-result", status_code=303
    )


@router.post("/webhooks/{webhook_id}/deliveries/{delivery_id}/retry")
async def retry(request: Request, who: Signed, webhook_id: str, delivery_id: str) -> Response:
    await permitted_form(request, who, Action.OPERATE)
    ctx = request.app.state.ctx
    db = await write_db(request)
    async with db.begin():
        webhook = await _find(db, who, webhook_id)
        delivery, _ = await deliveries.get_delivery(
            db, webhook=webhook, delivery_id=object_id(delivery_id, deliveries.DELIVERY)
        )
        await deliveries.retry(db, delivery=delivery, now=ctx.clock.now())
        await audit(
            db,
            request,
            who,
            "outgoing_webhook_delivery.retried",
            ctx.clock.now(),
            (deliveries.DELIVERY, delivery.id, webhook.name),
        )
    return RedirectResponse(f"/webhooks/{webhook.id}?done=retried#log", status_code=303)
