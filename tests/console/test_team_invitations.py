"""Invitations from /team: the person is added with the role, and a one-time link is mailed
through the alert e-mail's SMTP server (a real one: aiosmtpd) and shown once on the page."""

from __future__ import annotations

import re

import httpx
from fastapi import FastAPI

from tests.console.team_support import actions, audit_entries, person, role_of
from tests.factories.console import add_person, csrf_of, sign_in
from tests.factories.delivery import configure, smtp_server
from watchpost.console.paths import LINK_PATH

NEW_PASSWORD = "a-new-Password-of-Cy-42"
_LINK = re.compile(r"http://testserver" + LINK_PATH + r"/(wpl_[A-Za-z0-9_\-]+)")


async def test_an_invitation_is_mailed_and_its_link_sets_the_password_and_signs_in(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    with smtp_server() as mailbox:
        configure(app, smtp_url=f"smtp://127.0.0.1:{mailbox.port}")
        async with person(app, "ann@example.com", "admin", name="Ann Admin") as (admin, token):
            answer = await admin.post(
                "/team/invitations",
                data={
                    "csrf": token,
                    "email": "Cy@Example.com",
                    "name": "Cy Young",
                    "role": "responder",
                },
            )
    assert answer.status_code == 200
    assert "Cy Young" in answer.text and "is now responder of acme" in answer.text
    assert "An e-mail with the link below is on its way" in answer.text
    shown = _LINK.search(answer.text)
    assert shown is not None
    [message] = mailbox.to("cy@example.com")
    assert message["Subject"] == "You are invited to acme on Watchpost"
    body = message.get_content()
    assert "Ann Admin invited you to the team acme on Watchpost, as responder" in body
    mailed = _LINK.search(body)
    assert mailed is not None and mailed.group(1) == shown.group(1)
    assert await role_of(app, "cy@example.com") == "responder"

    link = f"{LINK_PATH}/{mailed.group(1)}"
    form = await client.get(link)
    assert form.status_code == 200 and "Join acme" in form.text
    joined = await client.post(link, data={"password": NEW_PASSWORD, "confirm": NEW_PASSWORD})
    assert joined.status_code == 303
    overview = await client.get("/")
    assert overview.status_code == 200 and "Overview of acme" in overview.text
    assert (await client.get(link)).status_code == 410  # it worked once
    await client.post("/logout", data={"csrf": csrf_of(overview.text)})
    assert (await sign_in(client, "cy@example.com", NEW_PASSWORD)).status_code == 303
    assert await actions(app) == ["member.invited", "invitation.accepted"]
    [invited] = [e for e in await audit_entries(app) if e.action == "member.invited"]
    assert invited.actor == "ann@example.com" and invited.subject == "cy@example.com"
    assert invited.details == {"role": "responder"}


async def test_without_smtp_the_page_shows_the_link_to_hand_over(app: FastAPI) -> None:
    assert app.state.ctx.settings.smtp_url is None
    async with person(app, "ann@example.com", "owner") as (admin, token):
        answer = await admin.post(
            "/team/invitations",
            data={"csrf": token, "email": "cy@example.com", "name": "Cy", "role": "owner"},
        )
    assert answer.status_code == 200
    assert "This server sends no e-mail: give them the link below yourself." in answer.text
    assert _LINK.search(answer.text) is not None
    assert await role_of(app, "cy@example.com") == "owner"


async def test_an_existing_person_joins_with_the_password_they_have(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    await add_person(app, email="gus@example.com", role="viewer", team="globex", name="Gus")
    async with person(app, "ann@example.com", "admin") as (admin, token):
        answer = await admin.post(
            "/team/invitations",
            data={"csrf": token, "email": "gus@example.com", "name": "", "role": "viewer"},
        )
        again = await admin.post(
            "/team/invitations",
            data={"csrf": token, "email": "gus@example.com", "name": "", "role": "admin"},
        )
    assert answer.status_code == 200
    assert await role_of(app, "gus@example.com") == "viewer"
    assert await role_of(app, "gus@example.com", "globex") == "viewer"
    assert again.status_code == 422
    assert "gus@example.com is already a member of acme" in again.text
    assert await role_of(app, "gus@example.com") == "viewer"


async def test_the_forms_errors_are_the_domains_beside_the_field_with_the_values_kept(
    app: FastAPI,
) -> None:
    async with person(app, "ann@example.com", "admin") as (admin, token):
        bad_email = await admin.post(
            "/team/invitations",
            data={"csrf": token, "email": "not an address", "name": "Cy", "role": "viewer"},
        )
        no_name = await admin.post(
            "/team/invitations",
            data={"csrf": token, "email": "cy@example.com", "name": " ", "role": "viewer"},
        )
        no_role = await admin.post(
            "/team/invitations",
            data={"csrf": token, "email": "cy@example.com", "name": "Cy", "role": "boss"},
        )
    assert bad_email.status_code == no_name.status_code == no_role.status_code == 422
    assert 'id="email-error"' in bad_email.text
    assert "Enter an e-mail address like name@example.com" in bad_email.text
    assert 'value="not an address"' in bad_email.text and 'href="#email"' in bad_email.text
    assert 'id="name-error"' in no_name.text and "Enter the person&#39;s name" in no_name.text
    assert 'id="role-error"' in no_role.text
    assert await role_of(app, "cy@example.com") is None
    assert await actions(app) == []
