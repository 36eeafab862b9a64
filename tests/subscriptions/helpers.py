"""Status page subscriptions in tests: a subscribable page, sign-ups through the public form,
the links of the mails, the delivery worker's passes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from typing import Any

import httpx
from fastapi import FastAPI

from tests.factories.api import Api, data
from tests.factories.delivery import Mailbox, configure, deliverer_of, smtp_server

PAGES = "/api/v2/status-pages"
PUBLIC = "http://status.example.test"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


@contextmanager
def mail_setup(app: FastAPI, **settings: Any) -> Iterator[Mailbox]:
    """A real SMTP server, the app sending to it, links under PUBLIC."""
    with smtp_server() as box:
        configure(app, smtp_url=f"smtp://127.0.0.1:{box.port}", public_url=PUBLIC, **settings)
        yield box


async def new_page(api: Api, subdomain: str = "acme", **attributes: Any) -> str:
    body = {"subdomain": subdomain, "company_name": "Acme", "subscribable": True, **attributes}
    return str(data(await api.post(PAGES, body), 201)["id"])


async def new_resource(api: Api, page_id: str, name: str) -> str:
    body = {"public_name": name}
    return str(data(await api.post(f"{PAGES}/{page_id}/resources", body), 201)["id"])


async def sign_up(
    client: httpx.AsyncClient, subdomain: str = "acme", **fields: Any
) -> httpx.Response:
    return await client.post(f"/status/{subdomain}/subscribe", data=fields, headers=FORM)


async def tick(app: FastAPI) -> int:
    """One whole delivery pass; the attempts sent."""
    return (await deliverer_of(app).tick()).sent


def body_text(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def html_text(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("html",))
    assert part is not None
    return str(part.get_content())


def link(text: str, kind: str) -> str:
    """The path of the first confirm or unsubscribe link in a text."""
    found = re.search(re.escape(PUBLIC) + rf"(/subscriptions/{kind}/[A-Za-z0-9._-]+)", text)
    assert found is not None, text
    return found.group(1)


async def subscribe_confirmed(
    app: FastAPI, client: httpx.AsyncClient, box: Mailbox, email: str, **fields: Any
) -> None:
    """Sign up, receive the confirmation, confirm."""
    assert (await sign_up(client, email=email, **fields)).status_code == 200
    await tick(app)
    confirmation = box.to(email)[-1]
    response = await client.post(link(body_text(confirmation), "confirm"))
    assert response.status_code == 200, response.text


async def report(api: Api, page_id: str, **body: Any) -> dict[str, Any]:
    return data(await api.post(f"{PAGES}/{page_id}/status-reports", body), 201)


def hit(rid: str, status: str) -> dict[str, str]:
    return {"status_page_resource_id": rid, "status": status}
