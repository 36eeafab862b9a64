"""The page's own sign-up form: shown only when the page takes subscribers, and what it
sends is what the subscribe route takes."""

from __future__ import annotations

import httpx

from tests.factories.api import Api
from tests.public_pages.pages import change_page, new_page, visit


async def test_the_form_is_shown_only_on_a_subscribable_page(
    api: Api, client: httpx.AsyncClient
) -> None:
    page_id = await new_page(api, "acme")
    _, doc = await visit(client, "/status/acme")
    assert not doc.find_all("form")
    assert not doc.find_all("input", name="email")

    await change_page(api, page_id, subscribable=True)
    _, doc = await visit(client, "/status/acme")
    section = doc.find("section", aria_labelledby="updates")
    assert section.find("h2").text == "Get updates"
    form = section.find("form")
    assert form.attrs["method"] == "post"
    assert form.attrs["action"] == "/status/acme/subscribe"
    field = form.find("input", name="email")
    assert field.attrs["type"] == "email" and "required" in field.attrs
    assert "E-mail address" in form.find("label").text
    assert form.find("button").text == "Subscribe"

    # what a browser sends from it
    answer = await client.post(
        form.attrs["action"],
        content="email=visitor%40example.com",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert answer.status_code == 200, answer.text
    assert "Check your inbox" in answer.text
