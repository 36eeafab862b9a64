"""Users' regular expressions (incoming webhook rules and fields): compiled, checked and run by
RE2 (google-re2), never by Python's `re`.

`re` backtracks: `^(a+)+$` against 28 a's and a `!` kept the event loop busy for seconds, and
each further character doubled it. RE2 runs in time linear in the input, times the size of
the pattern's compiled program; both are bounded here. Measured on the worst patterns found
within the bounds (1,000 instructions, 16 KiB of input, a busy 2-core machine): up to ≈ 20 ms
for a rule (no groups kept: RE2's DFA alone) and ≈ 200 ms for a field (its first group: RE2's
NFA), far above 1 ms, so matching runs on `off_loop`'s threads, never on the event loop (RE2
releases the GIL while it matches). RE2 (≈ 2.5 MB resident) is loaded at the first pattern
compiled, not with the module: a server without incoming webhook rules never loads it.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, Protocol, TypeVar

MAX_PATTERN_LENGTH: Final = 1000
"""Characters of a pattern (the schemas' `content` bound)."""
MAX_PROGRAM_SIZE: Final = 1000
"""RE2 instructions of a compiled pattern: the time of a match grows with it. A UUID pattern
is 72, `\\w{1,100}` 403, `.{0,110}` just under 1,000 (`.` is several: UTF-8)."""
MAX_MEM: Final = 4 * 1024 * 1024
"""RE2's memory budget for one pattern (its program and the DFA it builds while matching);
with 2 MiB the DFA gave up on large patterns and some matches took 25 times longer."""
MAX_INPUT_BYTES: Final = 16 * 1024
"""Bytes (UTF-8) of a value a pattern looks at: the first 16 KiB, the rest is not searched."""
CACHE_SIZE: Final = 64
"""Compiled patterns kept per kind (with or without groups); google-re2's own cache keeps the
last 128 too, so at most 128 * MAX_MEM of memory."""
THREADS: Final = 2
"""Threads matching runs on, apart from the default executor (DNS look-ups, password hashes
and the logs store must not wait behind a flood of webhook requests)."""

log = logging.getLogger(__name__)
T = TypeVar("T")
_executor: Final = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="patterns")


class _Match(Protocol):
    def group(self, index: int, /) -> bytes | None: ...


class _Compiled(Protocol):
    """What is used of google-re2's compiled pattern (the package ships no types)."""

    @property
    def groups(self) -> int: ...
    @property
    def programsize(self) -> int: ...
    def search(self, text: bytes, /) -> _Match | None: ...


@functools.cache
def _options(*, groups: bool) -> Any:
    import re2

    options = re2.Options()
    options.max_mem = MAX_MEM
    options.log_errors = False  # RE2 would print every refused pattern to stderr
    options.never_capture = not groups  # a rule only asks whether: RE2's DFA alone answers
    return options


def _reason(error: Exception) -> str:
    """RE2's reason without the piece of the pattern it quotes ("invalid escape sequence")."""
    text = error.args[0] if error.args else ""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return str(text).split(":", 1)[0].strip() or "not valid"


def _compile(pattern: str, *, groups: bool) -> _Compiled | str:
    """The compiled pattern, or why it cannot be used."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"longer than {MAX_PATTERN_LENGTH} characters"
    options = _options(groups=groups)
    import re2

    try:
        compiled: _Compiled = re2.compile(pattern, options)
    except re2.error as error:
        reason = _reason(error)
        if reason.startswith("pattern too large"):
            return f"too large for RE2 (at most {MAX_PROGRAM_SIZE} RE2 instructions)"
        return f"{reason}; RE2 syntax has no backreferences or lookaround"
    if compiled.programsize > MAX_PROGRAM_SIZE:
        return (
            f"too large for RE2: {compiled.programsize} instructions, at most "
            f"{MAX_PROGRAM_SIZE} (a large counted repetition such as {{1000}} makes many)"
        )
    return compiled


@functools.lru_cache(maxsize=CACHE_SIZE)
def _with_groups(pattern: str) -> _Compiled | str:
    return _compile(pattern, groups=True)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _without_groups(pattern: str) -> _Compiled | str:
    return _compile(pattern, groups=False)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _refused(pattern: str, reason: str) -> None:
    """Logs, once while cached, a pattern stored before RE2 checked it (Python's `re`
    accepted it): it matches nothing."""
    log.warning("an incoming webhook pattern RE2 refuses matches nothing: %s", reason)


def problem(pattern: str) -> str | None:
    """Why a pattern cannot be stored (RE2 refuses it, or it is too large), or None."""
    compiled = _with_groups(pattern)
    return compiled if isinstance(compiled, str) else None


def _bounded(text: str) -> bytes:
    """The first MAX_INPUT_BYTES of text as UTF-8, cut at a character boundary."""
    data = text.encode("utf-8", errors="replace")
    if len(data) <= MAX_INPUT_BYTES:
        return data
    return data[:MAX_INPUT_BYTES].decode("utf-8", errors="ignore").encode()


def matches(pattern: str, text: str) -> bool | None:
    """Whether the pattern is found in the text's first MAX_INPUT_BYTES; None when RE2
    refuses the pattern."""
    compiled = _without_groups(pattern)
    if isinstance(compiled, str):
        _refused(pattern, compiled)
        return None
    return compiled.search(_bounded(text)) is not None


def found(pattern: str, text: str) -> str | None:
    """The pattern's first group in the text's first MAX_INPUT_BYTES (the whole match when it
    has no group); None when nothing matches or RE2 refuses the pattern."""
    compiled = _with_groups(pattern)
    if isinstance(compiled, str):
        _refused(pattern, compiled)
        return None
    match = compiled.search(_bounded(text))
    value = None if match is None else match.group(1 if compiled.groups else 0)
    return None if value is None else value.decode("utf-8", errors="replace")


async def off_loop(work: Callable[[], T]) -> T:
    """work's result, computed on the matching threads, so a match never runs on the loop."""
    return await asyncio.get_running_loop().run_in_executor(_executor, work)
