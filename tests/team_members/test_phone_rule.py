"""The phone number rule (people/phones.py): E.164 kept as `+` and 8 to 15 digits, what
people type between digits dropped, anything else refused with words; at most five, each
once."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from watchpost.people import phones

DIGITS = st.text("0123456789", min_size=7, max_size=14)


@given(first=st.sampled_from("123456789"), rest=DIGITS, seps=st.lists(st.sampled_from(" -.()")))
def test_every_e164_number_is_kept_whatever_is_typed_between_its_digits(
    first: str, rest: str, seps: list[str]
) -> None:
    number = f"+{first}{rest}"
    typed = "+" + "".join(
        d + (seps[i] if i < len(seps) else "") for i, d in enumerate(first + rest)
    )
    assert phones.normalised(f"  {typed} ") == number


@given(st.text(max_size=30))
def test_whatever_is_kept_is_e164(typed: str) -> None:
    try:
        number = phones.normalised(typed)
    except phones.PhoneProblem:
        return
    assert number[0] == "+" and number[1:].isdigit() and 8 <= len(number) - 1 <= 15
    assert number[1] != "0"


@pytest.mark.parametrize(
    "typed",
    [
        "",
        "15550001111",
        "+1555000",
        "+0155500011",
        "+1234567890123456",
        "+1 555 abc 1111",
        "tel:+15550001111",
        "+1_555_000_1111",
        "++15550001111",
    ],
)
def test_what_no_service_could_dial_is_refused(typed: str) -> None:
    with pytest.raises(phones.PhoneProblem, match="international form"):
        phones.normalised(typed)


def test_a_list_is_read_by_lines_or_commas_each_number_once() -> None:
    typed = "+44 20 7946 0000\n\n+1 (555) 000-1111, +44-20-7946-0000\r\n"
    assert phones.numbers(typed) == ["+442079460000", "+15550001111"]
    assert phones.numbers(" \n ") == []


def test_at_most_five_numbers() -> None:
    five = "\n".join(f"+1555000111{i}" for i in range(5))
    assert len(phones.numbers(five)) == 5
    with pytest.raises(phones.PhoneProblem, match="at most 5"):
        phones.numbers(five + "\n+15550001119")
    with pytest.raises(phones.PhoneProblem, match="“12”"):
        phones.numbers("+15550001111\n12")
