"""Positions of sections in a page and of resources in a section: contiguous from 0.

Fixed-position items keep their position number through other items' inserts, moves and
deletes; only when the container shrinks below it does a fixed item move up (as little
as possible). The other items keep their relative order and fill the remaining slots.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar


class Placeable(Protocol):
    id: int
    position: int
    fixed_position: bool


P = TypeVar("P", bound=Placeable)


class PositionHeld(Exception):
    """The requested position belongs to a fixed-position item."""

    def __init__(self, holder: Placeable) -> None:
        super().__init__(f"position {holder.position} is held by a fixed-position item")
        self.holder = holder


def arrange(siblings: Sequence[P], moving: P | None = None, target: int | None = None) -> None:
    """Give siblings (and moving, placed at target or appended) contiguous positions.

    siblings must not include moving. A target past the end appends.
    """
    total = len(siblings) + (1 if moving is not None else 0)
    pins: list[tuple[int, P]] = [(item.position, item) for item in siblings if item.fixed_position]
    if moving is not None:
        slot = total - 1 if target is None else min(target, total - 1)
        for position, holder in pins:
            if position == slot:
                raise PositionHeld(holder)
        pins.append((slot, moving))
    slots: list[P | None] = [None] * total
    for wanted, item in sorted(pins, key=lambda pin: pin[0], reverse=True):
        slot = min(wanted, total - 1)
        while slots[slot] is not None:
            slot -= 1
        slots[slot] = item
    free = iter(
        sorted(
            (item for item in siblings if not item.fixed_position),
            key=lambda item: (item.position, item.id),
        )
    )
    for index, taken in enumerate(slots):
        if taken is None:
            slots[index] = next(free)
    for index, placed in enumerate(slots):
        assert placed is not None
        if placed.position != index:
            placed.position = index
