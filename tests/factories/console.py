"""The console in tests: people with passwords, signed-in httpx clients, and the pieces every
browser spec of the console shares (signing in, axe-core, no sideways scroll)."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
from fastapi import FastAPI

from tests.factories.api import TEST_PASSWORD
from tests.factories.playwright import run_spec
from tests.factories.served import serving
from watchpost.console.auth import COOKIE
from watchpost.people import accounts
from watchpost.probes.monitors import browser
from watchpost.teams.service import get_or_create_team

_CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')


async def add_person(
    app: FastAPI,
    *,
    email: str,
    team: str = "acme",
    role: str = "admin",
    name: str = "Test Person",
    password: str | None = TEST_PASSWORD,
) -> int:
    """A person (created if new) in team with role, with that password; their id."""
    ctx = app.state.ctx
    now = ctx.clock.now()
    async with ctx.db.write_sessions() as session, session.begin():
        found = await get_or_create_team(session, name=team, now=now)
        user, _ = await accounts.add_person(
            session, team=found, email=email, name=name, role=role, now=now
        )
        if password is not None and user.password_hash is None:
            await accounts.set_password(session, user, password, now)
        return user.id


async def sign_in(
    client: httpx.AsyncClient, email: str, password: str = TEST_PASSWORD
) -> httpx.Response:
    """Posts the sign-in form; the client keeps the session cookie."""
    return await client.post("/login", data={"email": email, "password": password})


def csrf_of(html: str) -> str:
    found = _CSRF.search(html)
    assert found, "the page has no CSRF token"
    return found.group(1)


async def csrf(client: httpx.AsyncClient, path: str = "/account") -> str:
    """The signed-in client's CSRF token, read from a page as a browser would."""
    page = await client.get(path)
    assert page.status_code == 200, page.text[:300]
    return csrf_of(page.text)


def session_cookie(client: httpx.AsyncClient) -> str | None:
    return client.cookies.get(COOKIE)


SPEC_HEAD = r"""
const { test, expect: strictExpect } = require('@playwright/test');
// A loaded CI machine (2 cores, the suite on 3 workers) can take seconds to answer a page:
// wait as long for what a person would wait for, rather than fail.
const expect = strictExpect.configure({ timeout: 15000 });
const AxeBuilder = require('@axe-core/playwright').default;
const env = process.env;

async function signIn(page, email, password) {
  await page.goto(env.BASE + '/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password || env.PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

// No serious or critical accessibility violation on the page as it is now.
async function axe(page) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => ['serious', 'critical'].includes(v.impact));
  expect(bad.map((v) => v.id + ': ' + v.help + ' ' + v.nodes.map((n) => n.target).join(' ')),
    'axe-core on ' + page.url()).toEqual([]);
}

async function noSideScroll(page) {
  const widths = await page.evaluate(() => [
    document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  expect(widths[0], 'page width ' + widths[0] + ' > viewport ' + widths[1] + ' on ' + page.url())
    .toBeLessThanOrEqual(widths[1]);
}

async function phone(page) {
  await page.setViewportSize({ width: 375, height: 800 });
}

// Every chart label as drawn (an SVG is scaled to the screen) at least 9 px tall.
async function legibleCharts(page) {
  const smallest = await page.evaluate(() => Math.min(...[...document.querySelectorAll('svg.chart text')]
    .filter((text) => text.getClientRects().length).map((text) => text.getBoundingClientRect().height)));
  expect(smallest, 'a chart label on ' + page.url()).toBeGreaterThanOrEqual(9);
}
"""
"""What a console spec starts with: `signIn`, `axe`, `noSideScroll`, `phone`, `legibleCharts`;
env.BASE is the server, env.PASSWORD the people's password, env.SHOTS the screenshots'
folder."""


@asynccontextmanager
async def served(app: FastAPI) -> AsyncIterator[str]:
    async with serving(app) as base:
        yield base


async def run_console_spec(
    app: FastAPI,
    runtime: browser.Runtime,
    folder: Path,
    spec: str,
    *,
    tests: int,
    env: dict[str, str] | None = None,
    env_for: Callable[[str], Awaitable[dict[str, str]]] | None = None,
    shots: Path | None = None,
) -> None:
    """Serves app and runs SPEC_HEAD + spec in Chromium; every test of it must pass. env_for
    (given the server's base URL) adds what depends on it. WATCHPOST_SCREENSHOTS=<folder>
    keeps the screenshots."""
    shots = shots or Path(os.environ.get("WATCHPOST_SCREENSHOTS") or folder / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    async with serving(app) as base:
        more = await env_for(base) if env_for is not None else {}
        await run_spec(
            runtime,
            folder / "spec",
            SPEC_HEAD + spec,
            tests=tests,
            env={
                "BASE": base,
                "PASSWORD": TEST_PASSWORD,
                "SHOTS": str(shots),
                **(env or {}),
                **more,
            },
            test_timeout_s=180,
            run_timeout_s=900,
        )
