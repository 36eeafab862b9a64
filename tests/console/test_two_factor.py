"""Two-factor sign-in: turned on from the account page with a code of the new key, then asked
for at every sign-in; a recovery code works once; a wrong code is refused."""

from __future__ import annotations

import re

import httpx
import pyotp
from fastapi import FastAPI

from tests.factories.console import add_person, csrf, sign_in


async def _enable(app: FastAPI, client: httpx.AsyncClient) -> tuple[str, list[str]]:
    token = await csrf(client)
    setup = await client.post("/account/two-factor/start", data={"csrf": token})
    assert setup.status_code == 200
    secret = re.search(r'id="totp-secret">([A-Z2-7]+)<', setup.text)
    assert secret, setup.text
    now = app.state.ctx.clock.now()
    wrong = await client.post("/account/two-factor/enable", data={"csrf": token, "code": "123"})
    assert wrong.status_code == 422 and "That code is not right" in wrong.text
    code = pyotp.TOTP(secret.group(1)).at(now)
    done = await client.post("/account/two-factor/enable", data={"csrf": token, "code": code})
    assert done.status_code == 200, done.text
    codes = re.search(r'<pre id="recovery-codes">(.*?)</pre>', done.text, re.S)
    assert codes
    return secret.group(1), codes.group(1).split()


async def test_turned_on_then_asked_at_sign_in(app: FastAPI, client: httpx.AsyncClient) -> None:
    await add_person(app, email="ann@example.com")
    await sign_in(client, "ann@example.com")
    secret, codes = await _enable(app, client)
    assert len(codes) == 10 and secret not in (await client.get("/account")).text
    await client.post("/logout", data={"csrf": await csrf(client)})

    asked = await sign_in(client, "ann@example.com")
    assert asked.headers["location"] == "/login/two-factor"
    assert (await client.get("/account")).headers["location"] == "/login/two-factor"
    assert (await client.post("/login/two-factor", data={"code": "000000"})).status_code == 401
    now = app.state.ctx.clock.now()
    ok = await client.post("/login/two-factor", data={"code": pyotp.TOTP(secret).at(now)})
    assert ok.status_code == 303 and ok.headers["location"] == "/"
    assert (await client.get("/account")).status_code == 200


async def test_a_recovery_code_works_once(app: FastAPI, client: httpx.AsyncClient) -> None:
    await add_person(app, email="ann@example.com")
    await sign_in(client, "ann@example.com")
    _, codes = await _enable(app, client)
    for attempt in range(2):
        await client.post("/logout", data={"csrf": await csrf(client)} if attempt == 0 else {})
        client.cookies.clear()
        await sign_in(client, "ann@example.com")
        answer = await client.post("/login/two-factor", data={"code": codes[0].upper()})
        assert answer.status_code == (303 if attempt == 0 else 401)
