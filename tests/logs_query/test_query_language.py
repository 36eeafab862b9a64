"""The logs query language: what queries mean, their errors, round trips, the matcher."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from watchpost.logs.query_language import (
    MAX_TERMS,
    QuerySyntaxError,
    flatten,
    matches,
    parse,
    raw_matches,
    unparse,
)
from watchpost.logs.store import Field, Term, Word


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("", []),
        ("   ", []),
        ("error", [Word("error")]),
        ("error  timeout", [Word("error"), Word("timeout")]),
        ('"connection refused"', [Word("connection refused")]),
        ("level:error", [Field("level", "error")]),
        ("context.runtime.file:app.py", [Field("context.runtime.file", "app.py")]),
        ("-level:debug", [Field("level", "debug", negated=True)]),
        ("-healthcheck", [Word("healthcheck", negated=True)]),
        ('-"GET /health"', [Word("GET /health", negated=True)]),
        ("host:web-*", [Field("host", "web-*")]),
        ("level:*", [Field("level", "*")]),
        ('user.name:"Ada Lovelace"', [Field("user.name", "Ada Lovelace")]),
        ("url:https://example.com/a", [Field("url", "https://example.com/a")]),
        ("timeout*", [Word("timeout")]),
        ("*", []),
        ("error AND timeout", [Word("error"), Word("timeout")]),
        ('"AND"', [Word("AND")]),
        ("12:30:05", [Word("12:30:05")]),
        (r'"say \"hi\" \\o/"', [Word('say "hi" \\o/')]),
        ("tags.0:blue", [Field("tags.0", "blue")]),
    ],
)
def test_meaning(query: str, terms: list[Term]) -> None:
    assert parse(query) == terms


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ('"unclosed', "unclosed quote"),
        ('level:"unclosed', "unclosed quote"),
        (":value", "empty field name"),
        ("-", "nothing after it"),
        ("error -", "nothing after it"),
        ("level:", "no value after level:"),
        ('level:""', "empty quoted value"),
        ('""', "empty phrase"),
        ('ab"c', "inside a word"),
        ('"a"b', "space after a closing quote"),
        ("a..b:c", "invalid field path"),
        ("a OR b", "OR"),
        ("--x", "double"),
        ("-*", "excludes everything"),
        (" ".join(["w"] * (MAX_TERMS + 1)), "more than"),
        ("x" * 2001, "longer than"),
    ],
)
def test_errors(query: str, message: str) -> None:
    with pytest.raises(QuerySyntaxError, match=message):
        parse(query)


def test_error_position() -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse('level:error "oops')
    assert caught.value.position == 12
    assert "at character 13" in str(caught.value)


_paths = st.from_regex(
    r"[A-Za-z_@$][A-Za-z0-9_@$\-]{0,8}(\.[A-Za-z0-9_@$\-]{1,5}){0,3}", fullmatch=True
)
_texts = st.text(min_size=1, max_size=20)
_terms = st.one_of(
    st.builds(Word, _texts, st.booleans()),
    st.builds(Field, _paths, _texts, st.booleans()),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_terms, max_size=8))
def test_terms_round_trip(terms: list[Term]) -> None:
    assert parse(unparse(terms)) == terms


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_parse_never_crashes_and_reads_back(query: str) -> None:
    try:
        terms = parse(query)
    except QuerySyntaxError as error:
        assert 0 <= error.position <= len(query)
        return
    assert parse(unparse(terms)) == terms


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet='ab :-"*\\.\t', max_size=30))
def test_parse_never_crashes_on_syntax_characters(query: str) -> None:
    try:
        terms = parse(query)
    except QuerySyntaxError:
        return
    assert parse(unparse(terms)) == terms


# ------------------------------------------------------------------------------ matching

EVENT = {
    "message": "Connection refused by db-1",
    "level": "ERROR",
    "context": {"runtime": {"file": "app.py", "line": 12}, "ok": False},
    "tags": ["blue", "green"],
    "note": None,
    "empty": {},
    "none": [],
}


def test_flatten() -> None:
    assert flatten(EVENT) == {
        "message": "Connection refused by db-1",
        "level": "ERROR",
        "context.runtime.file": "app.py",
        "context.runtime.line": "12",
        "context.ok": "false",
        "tags.0": "blue",
        "tags.1": "green",
        "note": "null",
        "empty": "{}",
        "none": "[]",
    }
    assert flatten("plain text") == {"message": "plain text"}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("refused", True),
        ("REFUSED db", True),
        ('"connection refused"', True),
        ('"refused connection"', False),
        ("level:error", True),
        ("level:err", False),
        ("level:err*", True),
        ("-level:error", False),
        ("-level:debug", True),
        ("context.runtime.file:app.py", True),
        ("context.runtime.line:12", True),
        ("context.runtime:app.py", False),
        ("tags.1:GREEN", True),
        ("missing:*", False),
        ("-missing:*", True),
        ("level:*", True),
        ("app.py", True),
        ("-app.py", False),
        ("refused -timeout", True),
        ("refused timeout", False),
    ],
)
def test_matcher(query: str, expected: bool) -> None:
    leaves = flatten(EVENT)
    assert matches(parse(query), str(EVENT["message"]), leaves) is expected
    assert raw_matches(parse(query), orjson.dumps(EVENT)) is expected
