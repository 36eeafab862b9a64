"""Page numbers and sizes in a console list's URL: whatever is typed there, the list answers
with a page (the first, or the highest allowed), never an error page or a 500."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from tests.console.team_support import person
from watchpost.console.query_numbers import number

LISTS = (
    "/",
    "/incidents",
    "/on-call",
    "/policies",
    "/policies/groups",
    "/policies/urgency-groups",
    "/channels",
    "/team/audit",
    "/maintenance-windows",
    "/webhooks",
    "/integrations",
    "/sources",
)
ODD = ("²", "٣", "9" * 5000, "-1", "0", "1e3", "abc", " 2 ", "")


@pytest.mark.parametrize("raw", ODD)
def test_number_never_raises(raw: str) -> None:
    assert 1 <= number(raw, 1, 100) <= 100


def test_numbers() -> None:
    assert number("7") == 7
    assert number(" 2 ") == 2
    assert number("500", 1, 100) == 100
    assert number("²", 25, 100) == 25
    assert number(None, 3) == 3


async def test_lists_answer_any_page_number(app: FastAPI) -> None:
    async with person(app, "owner@example.com", "owner") as (client, _):
        for path in LISTS:
            for raw in ODD:
                for name in ("page", "per_page"):
                    answer = await client.get(path, params={name: raw})
                    assert answer.status_code == 200, (path, name, raw[:10], answer.text[:200])
