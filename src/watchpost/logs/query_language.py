"""The logs query language: text → the store's query AST (logs/store.py), back to text, and
a Python matcher of that AST (the live tail's filter and the reference in tests).

    error timeout              both words, anywhere (message or any attribute value)
    "connection refused"       a phrase (\\" and \\\\ escape inside quotes)
    level:error                a field equals a value (dotted paths: context.runtime.file:app.py)
    host:web-*                 a value starting with web-
    -level:debug -healthcheck  exclude
    level:* / -trace_id:*      the field is there / is not

Every term must hold (a bare AND between terms is allowed and means nothing more). Words and
phrases match case-insensitively as substrings; field values match case-insensitively as a
whole (or as a prefix with a trailing *). Malformed input raises QuerySyntaxError with the
position, which the endpoints turn into a 422 naming `query`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import orjson

from watchpost.logs.store import Field, Term, Word

MAX_QUERY_LENGTH: Final = 2000
"""Characters of a query; longer is a 422."""
MAX_TERMS: Final = 50
"""Terms of a query; more is a 422."""

_PATH: Final = re.compile(r"[A-Za-z_@$][A-Za-z0-9_@$\-]*(?:\.[A-Za-z0-9_@$\-]+)*")
_PATH_START: Final = re.compile(r"[A-Za-z_@$]")


class QuerySyntaxError(ValueError):
    """A query that cannot be read; `position` is the 0-based character where it went wrong."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"{message} (at character {position + 1})")
        self.position = position


def parse(query: str) -> list[Term]:
    """The terms of a query, all of which must hold; [] for a blank query (matches all)."""
    if len(query) > MAX_QUERY_LENGTH:
        raise QuerySyntaxError(f"is longer than {MAX_QUERY_LENGTH} characters", MAX_QUERY_LENGTH)
    return list(_Parser(query).terms())


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def terms(self) -> Iterable[Term]:
        count = 0
        while True:
            self._skip_spaces()
            if self.pos >= len(self.text):
                return
            term = self._term()
            if term is None:
                continue
            count += 1
            if count > MAX_TERMS:
                raise QuerySyntaxError(f"has more than {MAX_TERMS} terms", self.pos)
            yield term

    def _skip_spaces(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def _term(self) -> Term | None:
        start = self.pos
        negated = self.text[self.pos] == "-"
        if negated:
            self.pos += 1
            if self.pos >= len(self.text) or self.text[self.pos].isspace():
                raise QuerySyntaxError("has a - with nothing after it to exclude", start)
            if self.text[self.pos] == "-":
                raise QuerySyntaxError("has a double -- (quote a word starting with -)", start)
        if self.text[self.pos] == '"':
            phrase = self._quoted()
            if not phrase:
                raise QuerySyntaxError("has an empty phrase", start)
            self._expect_end_of_term()
            return Word(phrase, negated)
        bare = self._bare()
        if ":" in bare:
            field = self._field(bare, start + int(negated), negated)
            if field is not None:
                return field
        if not negated and bare in ("AND", "&&"):
            return None  # every term must hold anyway
        if not negated and bare in ("OR", "||", "NOT"):
            raise QuerySyntaxError(
                f"uses {bare}, which is not supported: every term must match; exclude a term "
                "with - (quote the word to search for it)",
                start,
            )
        text = bare.rstrip("*")
        if not text:
            if negated:
                raise QuerySyntaxError("excludes everything (-*)", start)
            return None  # a bare * matches everything
        return Word(text, negated)

    def _bare(self) -> str:
        """A run of non-space characters; a quote may follow a field's colon only."""
        start = self.pos
        while self.pos < len(self.text) and not self.text[self.pos].isspace():
            char = self.text[self.pos]
            if char == '"':
                if self.pos > start and self.text[self.pos - 1] == ":":
                    break  # field:"quoted value"
                raise QuerySyntaxError(
                    'has a " inside a word: quote the whole phrase ("like this")', self.pos
                )
            self.pos += 1
        return self.text[start : self.pos]

    def _field(self, bare: str, start: int, negated: bool) -> Field | None:
        name, _, value = bare.partition(":")
        if not name:
            raise QuerySyntaxError("has an empty field name before :", start)
        if not _PATH_START.match(name):
            return None  # e.g. 12:30:05 is a word
        if not _PATH.fullmatch(name):
            raise QuerySyntaxError(
                f"has an invalid field path {name!r} (letters, digits, _ - @ $ and dots "
                "between names)",
                start,
            )
        if not value and self.pos < len(self.text) and self.text[self.pos] == '"':
            value = self._quoted()
            if not value:
                raise QuerySyntaxError(f"has an empty quoted value for field {name}", start)
            self._expect_end_of_term()
        elif not value:
            raise QuerySyntaxError(f"has no value after {name}: (use {name}:* for any)", start)
        return Field(name, value, negated)

    def _quoted(self) -> str:
        start = self.pos
        self.pos += 1
        chars: list[str] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < len(self.text) and self.text[self.pos + 1] in '"\\':
                chars.append(self.text[self.pos + 1])
                self.pos += 2
                continue
            if char == '"':
                self.pos += 1
                return "".join(chars)
            chars.append(char)
            self.pos += 1
        raise QuerySyntaxError('has an unclosed quote "', start)

    def _expect_end_of_term(self) -> None:
        if self.pos < len(self.text) and not self.text[self.pos].isspace():
            raise QuerySyntaxError("needs a space after a closing quote", self.pos)


# ------------------------------------------------------------------------------- to text


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _bare_word(text: str) -> bool:
    return (
        bool(text)
        and not any(char.isspace() or char == '"' for char in text)
        and not text.startswith("-")
        and not text.endswith("*")
        and ":" not in text
        and text not in ("AND", "&&", "OR", "||", "NOT")
    )


def _bare_value(text: str) -> bool:
    return bool(text) and not any(char.isspace() or char == '"' for char in text)


def unparse(terms: Sequence[Term]) -> str:
    """Query text that parses back to the same terms."""
    parts: list[str] = []
    for term in terms:
        sign = "-" if term.negated else ""
        if isinstance(term, Word):
            parts.append(sign + (term.text if _bare_word(term.text) else _quote(term.text)))
        else:
            value = term.value if _bare_value(term.value) else _quote(term.value)
            parts.append(f"{sign}{term.path}:{value}")
    return " ".join(parts)


# ------------------------------------------------------------------------------ matching


def flatten(event: Any) -> dict[str, str]:
    """Every leaf of a decoded JSON event by its dotted path, as text ("context.runtime.file"
    -> "app.py"; lists indexed "tags.0"; strings as they are, other values as JSON text:
    true, 12, null; an empty object or list as {} or []). A non-object event is the leaf
    "message"."""
    leaves: dict[str, str] = {}
    if not isinstance(event, dict):
        _leaf(leaves, "message", event)
        return leaves
    stack: list[tuple[str, Any]] = [("", event)]
    while stack:
        prefix, value = stack.pop()
        items: Iterable[tuple[Any, Any]]
        if (isinstance(value, dict | list) and not value) and prefix:
            leaves[prefix] = "{}" if isinstance(value, dict) else "[]"  # as ingestion keeps it
            continue
        if isinstance(value, dict):
            items = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            _leaf(leaves, prefix, value)
            continue
        for key, child in items:
            stack.append((f"{prefix}.{key}" if prefix else str(key), child))
    return leaves


def _leaf(leaves: dict[str, str], path: str, value: Any) -> None:
    leaves[path] = value if isinstance(value, str) else orjson.dumps(value).decode()


def term_holds(term: Term, message: str, attributes: Mapping[str, str]) -> bool:
    """Whether one term holds for an event (its message and flattened attributes)."""
    if isinstance(term, Word):
        needle = term.text.lower()
        found = needle in message.lower() or any(
            needle in value.lower() for value in attributes.values()
        )
        return found != term.negated
    value = attributes.get(term.path)
    if value is None:
        return term.negated
    if term.value.endswith("*"):
        hit = value.lower().startswith(term.value[:-1].lower())
    else:
        hit = value.lower() == term.value.lower()
    return hit != term.negated


def matches(terms: Sequence[Term], message: str, attributes: Mapping[str, str]) -> bool:
    """Whether every term holds for an event."""
    return all(term_holds(term, message, attributes) for term in terms)


def raw_matches(terms: Sequence[Term], raw: bytes) -> bool:
    """Whether every term holds for an event as sent (JSON)."""
    leaves = flatten(orjson.loads(raw))
    return matches(terms, leaves.get("message", leaves.get("msg", "")), leaves)
