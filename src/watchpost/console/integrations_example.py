"""An example request that would start an incident under an incoming webhook's started
rules, as a curl command for its receiving URL (its page and its form show it).

Each rule gets a value that satisfies it (its `content` for equals and contains, a filler
for the `_not`s, the pattern itself or a filler a regular expression matches), put where it
looks (a JSON path, a header, a query parameter, the body). The request is then judged by
the receiving side's own matching (incoming/matching.py): an example that would not start
an incident is never offered as one; `note` says which rule could not be satisfied.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlencode

import orjson

from watchpost.incoming import matching, patterns

TITLE: Final = "Disk almost full on db-1"
DEFAULT_BODY: Final = {"title": TITLE, "status": "firing"}
FILLERS: Final = ("example", "ok", "x", "0", "")


@dataclass
class Example:
    """A request: a JSON body (or a text body), headers and query parameters."""

    json: dict[str, Any] = field(default_factory=dict)
    text: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    note: str | None = None

    def body(self) -> bytes:
        return self.text.encode() if self.text is not None else orjson.dumps(self.json)

    def received(self) -> matching.Received:
        headers = {name.lower(): value for name, value in self.headers.items()}
        return matching.Received(body=self.body(), headers=headers, query=dict(self.query))


def _value(rule: Mapping[str, Any]) -> str | None:
    """A value the rule holds for, or None when none is found."""
    kind = str(rule.get("match_type") or "")
    content = str(rule.get("content") or "")
    if kind in ("equals", "contains"):
        return content
    if kind == "equals_not":
        return next(text for text in FILLERS if text != content)
    if kind == "contains_not":
        return next((text for text in FILLERS if content not in text), None)
    wanted = kind == "matches_regex"
    plain = content.strip("^$").replace("\\", "")
    bare = re.sub(r"[\^$.*+?()\[\]{}|\\]", "", content)
    for text in (content, plain, bare, *FILLERS) if wanted else FILLERS:
        if patterns.matches(content, text) is wanted:
            return text
    return None


def _put(document: dict[str, Any], path: str, value: str) -> None:
    """Sets the value at a dotted JSON path (numbers: list items), making what is missing."""
    keys = path.split(".")
    here: Any = document
    for key, after in zip(keys, [*keys[1:], None], strict=True):
        empty: Any = None if after is None else [] if after.isdigit() else {}
        if isinstance(here, list) and key.isdigit():
            index = int(key)
            while len(here) <= index:
                here.append(None)
            if after is None or not isinstance(here[index], dict | list):
                here[index] = value if after is None else empty
            here = here[index]
        elif isinstance(here, dict):
            if after is None or not isinstance(here.get(key), dict | list):
                here[key] = value if after is None else empty
            here = here[key]
        else:
            return


def _apply(example: Example, rule: Mapping[str, Any], value: str) -> None:
    target, name = rule.get("rule_target"), str(rule.get("target_field") or "")
    if target == "json":
        _put(example.json, name, value)
    elif target == "header":
        example.headers[name] = value
    elif target == "query_string":
        example.query[name] = value
    elif target == "body" and rule.get("match_type") == "equals":
        example.text = value
    elif target == "body":
        example.json.setdefault("message", value)


def _build(rules: Sequence[Mapping[str, Any]], title: Mapping[str, Any] | None) -> Example:
    example = Example()
    for rule in rules:
        value = _value(rule)
        if value is not None:
            _apply(example, rule, value)
    if (
        title is not None
        and title.get("field_target") == "json"
        and title.get("match_type") == "match_everything"
        and matching.json_path(example.json, str(title.get("target_field") or ""))
        is matching.MISSING
    ):
        _put(example.json, str(title.get("target_field") or ""), TITLE)
    return example


def _started(rule_type: str, rules: Sequence[Mapping[str, Any]], example: Example) -> bool:
    return rule_type == "unused" or matching.satisfied(rule_type, rules, example.received())


def example_of(
    rule_type: str, rules: Sequence[Mapping[str, Any]], title: Mapping[str, Any] | None
) -> Example:
    """A request that would start an incident, judged by the receiving side's matching;
    when none is found, the closest try with a note. Runs regular expressions: call it
    through patterns.off_loop."""
    usable = [rule for rule in rules if isinstance(rule, Mapping)]
    if rule_type == "unused":
        example = _build([], title)
        if not example.json:
            example.json = dict(DEFAULT_BODY)
        return example
    tries = [usable] if rule_type == "all" else [[rule] for rule in usable]
    for chosen in tries:
        example = _build(chosen, title)
        if _started(rule_type, usable, example):
            return example
    example = _build(usable if rule_type == "all" else usable[:1], title)
    example.note = (
        "No example request satisfying these rules was found (an xml rule, a regular "
        "expression, or rules that contradict each other): adjust the request below."
    )
    return example


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def curl(url: str, example: Example) -> str:
    """The example as a curl command (every argument single-quoted for a POSIX shell)."""
    target = f"{url}?{urlencode(example.query)}" if example.query else url
    lines = [f"curl -X POST {_quoted(target)}"]
    kind = "text/plain" if example.text is not None else "application/json"
    headers = {"Content-Type": kind, **example.headers}
    lines += [f"  -H {_quoted(f'{name}: {value}')}" for name, value in headers.items()]
    lines.append(f"  -d {_quoted(example.body().decode())}")
    return " \\\n".join(lines)


async def curl_for(url: str, values: Mapping[str, Any]) -> tuple[str, str | None]:
    """The curl command starting an incident under these attributes (as the API shows
    them), and a note when no request satisfying them was found."""
    rules = [rule for rule in values.get("started_rules") or [] if isinstance(rule, dict)]
    rule_type = str(values.get("started_rule_type") or "unused")
    title = values.get("title_field")
    example = await patterns.off_loop(
        lambda: example_of(rule_type, rules, title if isinstance(title, dict) else None)
    )
    return curl(url, example), example.note
