"""What the hosted API's Terraform providers do with a response: the values they keep.

The providers decode `attributes` into Go structs of pointers and `d.Set` every field they
know: a missing or null value becomes the type's zero value in the state. A plan shows a
change whenever the state differs from the configuration, so every value a provider sends
must come back equal after that conversion.
"""

from __future__ import annotations

from typing import Any


def as_state(sent: Any, read: Any) -> Any:
    """read as the provider stores it, shaped like sent (null: the zero value of sent's type)."""
    if read is None:
        if isinstance(sent, bool):
            return False
        if isinstance(sent, int):
            return 0
        if isinstance(sent, str):
            return ""
        if isinstance(sent, list):
            return []
        return None
    if isinstance(sent, dict) and isinstance(read, dict):
        return {key: as_state(value, read.get(key)) for key, value in sent.items()}
    if isinstance(sent, list) and isinstance(read, list) and len(sent) == len(read):
        return [as_state(a, b) for a, b in zip(sent, read, strict=True)]
    return read


def assert_reads_back(
    sent: dict[str, Any], attributes: dict[str, Any], *, write_only: tuple[str, ...] = ()
) -> None:
    """Every sent attribute (but the write-only ones, dotted paths allowed) reads back equal."""
    expected = _without(sent, write_only)
    actual = as_state(expected, attributes)
    assert actual == expected, {
        key: (value, actual.get(key)) for key, value in expected.items() if actual.get(key) != value
    }


def _without(sent: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    result = dict(sent)
    for path in paths:
        head, _, rest = path.partition(".")
        if head not in result:
            continue
        if rest and isinstance(result[head], dict):
            result[head] = _without(result[head], (rest,))
        elif not rest:
            del result[head]
    return result
