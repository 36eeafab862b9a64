"""Users' regular expressions run by RE2 (incoming/patterns.py): refused patterns, the input
bound, and patterns RE2 refuses that were stored before it checked them."""

from __future__ import annotations

import logging

import pytest

from watchpost.incoming import patterns
from watchpost.incoming.matching import Received, holds


def test_re2_runs_the_patterns_not_pythons_re() -> None:
    # RE2's syntax, which Python's `re` reads otherwise or refuses: (?U) makes RE2's
    # repetitions lazy (to `re` it is the Unicode flag); \pN and \z are RE2's, not `re`'s.
    assert patterns.found(r"(?U)id=(\d+)", "id=123") == "1"
    assert patterns.problem(r"\pN+\z") is None
    assert patterns.matches(r"^\pN+\z", "42") is True
    # The ReDoS of the issue: no match, at once.
    assert patterns.matches(r"^(a+)+$", "a" * 28 + "!") is False
    assert patterns.matches(r"^(a+)+$", "a" * 28) is True


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        (r"(a)\1", "backreferences"),
        (r"(?=a)b", "lookaround"),
        (r"(?<!a)b", "lookaround"),
        ("(", "missing )"),
        ("a{200}b{200}c{200}d{200}e{200}", f"at most {patterns.MAX_PROGRAM_SIZE}"),
        ("a" * (patterns.MAX_PATTERN_LENGTH + 1), "longer than"),
    ],
)
def test_patterns_re2_cannot_run_are_refused_with_the_reason(pattern: str, why: str) -> None:
    problem = patterns.problem(pattern)
    assert problem is not None and why in problem
    assert pattern not in problem or len(pattern) < 3  # the reason, not the pattern echoed


def test_only_the_first_bytes_of_a_value_are_searched() -> None:
    limit = patterns.MAX_INPUT_BYTES
    assert patterns.matches("b", "a" * (limit - 1) + "b") is True
    assert patterns.matches("b", "a" * limit + "b") is False
    assert patterns.found("(b+)", "a" * (limit - 2) + "bbbb") == "bb"
    # Cut at a character boundary: a 2-byte character across the bound is left out whole.
    assert patterns.found("(é+)$", "a" * (limit - 3) + "éé") == "é"


def test_a_stored_pattern_re2_refuses_matches_nothing_and_is_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger=patterns.__name__)
    pattern = r"(x)\1 stored before RE2"
    received = Received(body=b"xx stored before RE2")
    for kind in ("matches_regex", "matches_regex_not"):
        rule = {"rule_target": "body", "match_type": kind, "content": pattern}
        assert holds(rule, received) is False
    assert patterns.found(pattern, "xx") is None
    warned = [r for r in caplog.records if "RE2 refuses" in r.getMessage()]
    assert len(warned) == 1 and "backreferences" in warned[0].getMessage()
