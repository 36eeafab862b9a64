from typing import Any

def columns(
    body: bytes, received_micros: int, /
) -> (
    tuple[
        int,
        bytes,
        tuple[tuple[bytes, bytes, bytes | None, int], ...],
        list[tuple[str, bytes, bytes, bytes | None, int]],
        list[tuple[int, Any]],
    ]
    | None
): ...
