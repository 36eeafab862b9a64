"""People's phone numbers: the E.164 rule they are kept by, and reading a list of them as
typed (one a line, or separated by commas).

A number is `+` and 8 to 15 digits, the first not 0 (ITU-T E.164: at most 15 digits with
the country code); spaces, dashes, dots and brackets typed between the digits are dropped. A
person keeps at most `MAX_NUMBERS`, each once. No phone-number library is a dependency, and
a gateway is the one to know whether a number exists: this small strict rule only keeps out
what no SMS or call service could dial.
"""

from __future__ import annotations

import re
from typing import Final

MAX_NUMBERS: Final = 5
MAX_TYPED: Final = 40
"""The longest a typed number may be before its separators are dropped."""
_SEPARATORS: Final = re.compile(r"[\s\-.()]+")
_E164: Final = re.compile(r"\+[1-9][0-9]{7,14}")


class PhoneProblem(ValueError):
    """What is wrong with typed numbers, in words a person can act on."""


def normalised(typed: str) -> str:
    """The number in E.164 (`+15550001111`), or PhoneProblem."""
    shown = typed.strip()
    number = _SEPARATORS.sub("", shown) if len(shown) <= MAX_TYPED else shown
    if not _E164.fullmatch(number):
        what = f"“{shown[:MAX_TYPED]}” is not" if shown else "Enter"
        raise PhoneProblem(
            f"{what} a phone number in international form: + and the country code, then "
            "the number (8 to 15 digits in all)"
        )
    return number


def numbers(typed: str) -> list[str]:
    """The numbers of a list as typed (lines or commas; blanks skipped), in E.164, each once
    in the order typed; PhoneProblem names the first wrong one, or too many."""
    found: list[str] = []
    for piece in re.split(r"[,\n]", typed):
        if piece.strip():
            number = normalised(piece)
            if number not in found:
                found.append(number)
    if len(found) > MAX_NUMBERS:
        raise PhoneProblem(f"Keep at most {MAX_NUMBERS} phone numbers")
    return found
