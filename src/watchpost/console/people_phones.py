"""A person's phone numbers, where SMS and calls telling them go: their own on /account, any
team member's (admins) on /team/people/{id}. One textarea, a number a line, checked by
people/phones.py; a wrong one is shown beside the field on the page it came from.

The audit entry says whose numbers changed and how many they have now, never the numbers.
"""

from __future__ import annotations

from typing import Final

from fastapi import Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.console.account import account_page, audit
from watchpost.console.auth import Viewer, checked_form, permitted_form, write_db
from watchpost.console.people_contact import contact_page, may_change, member_of, person_row
from watchpost.console.signed_routes import Signed, console_router
from watchpost.people import phones
from watchpost.people.roles import Action

router = console_router()
FIELD: Final = "phone_numbers"
MAX_FORM: Final = 1000
"""The most of the field's text read (and shown again beside an error)."""


async def _save(
    request: Request, who: Viewer, db: AsyncSession, user_id: int, numbers: list[str]
) -> None:
    """Keep the person's numbers and say so in the audit log (unchanged: nothing)."""
    row = await person_row(db, user_id)
    if row.phone_numbers == numbers:
        return
    details = {"numbers_before": len(row.phone_numbers or []), "numbers": len(numbers)}
    row.phone_numbers = numbers
    action = "person.phone_numbers_changed"
    await audit(db, request, who, action, None, ("user", row.id, row.email), details)


@router.post("/account/phone-numbers")
async def change_own(request: Request, who: Signed) -> Response:
    """The signed-in person's own numbers (any role)."""
    form = await checked_form(request, who)
    typed = str(form.get(FIELD, ""))[:MAX_FORM]
    try:
        numbers = phones.numbers(typed)
    except phones.PhoneProblem as problem:
        return await account_page(request, who, errors={FIELD: str(problem)}, typed_phones=typed)
    db = await write_db(request)
    async with db.begin():
        await _save(request, who, db, who.user.id, numbers)
    return RedirectResponse("/account?done=saved#phone-numbers", status_code=303)


@router.post("/team/people/{user_id}/phone-numbers")
async def change_member(request: Request, who: Signed, user_id: str) -> Response:
    """A member's numbers: their own, or (admins) anyone's in the team."""
    form = await permitted_form(request, who, Action.READ)
    typed = str(form.get(FIELD, ""))[:MAX_FORM]
    db = await write_db(request)
    async with db.begin():
        member = await member_of(db, who, user_id)
        if not may_change(who, member[0].id):
            who.require(Action.MANAGE_PEOPLE)  # the refusal page
        try:
            numbers = phones.numbers(typed)
        except phones.PhoneProblem as problem:
            return await contact_page(
                request, who, db, member, errors={FIELD: str(problem)}, typed_phones=typed
            )
        await _save(request, who, db, member[0].id, numbers)
    return RedirectResponse(f"/team/people/{member[0].id}#phone-numbers", status_code=303)
