"""Positions of sections in a page and of resources in a section, as the hosted API keeps them.

A fixed-position item (`fixed_position: true`, what the hosted API's Terraform provider always
sends) keeps the number it was given, gaps and all: other items' inserts, moves and deletes
never renumber it, except that an item placed explicitly on its number displaces it: a fixed
item moving within the container swaps numbers with it (so the PATCHes Terraform sends to
reorder items, one per item in any order, end with each where its configuration says), any
other arrival pushes it (and any fixed item right after it) one further. The other items fill the numbers no fixed item holds,
from 0, keeping their relative order; an item placed among them at position p takes p and
the ones from p on shift down. Positions are therefore unique within their container, and
what a client sends for a fixed item is what it reads back.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, TypeVar

from watchpost.validation import INT32_MAX


class Placeable(Protocol):
    id: int
    position: int
    fixed_position: bool


P = TypeVar("P", bound=Placeable)


class PositionHeld(Exception):
    """No room: the fixed-position items after the target reach the largest position."""

    def __init__(self, holder: Placeable) -> None:
        super().__init__(f"position {holder.position} is held by a fixed-position item")
        self.holder = holder


def _free_numbers(fixed: dict[int, P]) -> Iterator[int]:
    number = 0
    while True:
        if number not in fixed:
            yield number
        number += 1


def _make_room(fixed: dict[int, P], slot: int) -> None:
    """Free slot by pushing the run of fixed items starting there one further."""
    end = slot
    while end in fixed:
        end += 1
    if end > INT32_MAX:
        raise PositionHeld(fixed[slot] if slot in fixed else fixed[max(fixed)])
    for number in range(end, slot, -1):
        fixed[number] = fixed.pop(number - 1)


def arrange(
    siblings: Sequence[P],
    moving: P | None = None,
    target: int | None = None,
    previous: int | None = None,
) -> None:
    """Give siblings (and moving, placed at target or appended) their positions.

    siblings must not include moving; previous is moving's number when it moves within this
    container. A target past the end appends, except for a fixed-position item, which takes
    the number it was given.
    """
    fixed: dict[int, P] = {}
    for item in sorted(
        (item for item in siblings if item.fixed_position), key=lambda i: (i.position, i.id)
    ):
        number = item.position
        while number in fixed:  # never two on one number, whatever was stored before
            number += 1
        fixed[number] = item
    flowing = sorted(
        (item for item in siblings if not item.fixed_position),
        key=lambda item: (item.position, item.id),
    )
    if moving is not None and moving.fixed_position:
        if target is None:
            numbers = _free_numbers(fixed)
            last = max([*fixed, *(next(numbers) for _ in flowing)], default=-1)
            target = last + 1
        if target in fixed and previous is not None and previous not in fixed:
            fixed[previous] = fixed.pop(target)  # a swap
        else:
            _make_room(fixed, target)
        fixed[target] = moving
    elif moving is not None:
        # Index among the flowing items of the first free number at or after target.
        index = len(flowing)
        if target is not None:
            below = target - sum(1 for number in fixed if number < target)
            if below <= len(flowing):
                index = below
                _make_room(fixed, target)
        flowing.insert(index, moving)
    for number, item in fixed.items():
        if item.position != number:
            item.position = number
    for number, item in zip(_free_numbers(fixed), flowing, strict=False):
        if item.position != number:
            item.position = number
