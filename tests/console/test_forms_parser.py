"""The form parser (console/forms.py): any posted form becomes a JSON body without raising,
and a value shown in a form comes back as the same JSON value."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.datastructures import FormData

from watchpost.collectors.target_kinds import KINDS
from watchpost.console import form_specs
from watchpost.console.forms import (
    CLEAR,
    FORM_ERROR,
    Field,
    Raw,
    body_of,
    field_errors,
    initial,
    posted,
    raw_of,
)
from watchpost.groups.group_kinds import HEARTBEAT_GROUPS, MONITOR_GROUPS
from watchpost.monitors.types import MONITOR_TYPES

REFS = {"monitor_group_id": [("1", "Shop")], "policy_id": [("7", "Ops")]}
FORMS: list[list[Field]] = [
    *(form_specs.monitor_fields(name, REFS) for name in MONITOR_TYPES),
    form_specs.heartbeat_fields(REFS),
    *(form_specs.target_fields(kind) for kind in KINDS),
    form_specs.group_fields(MONITOR_GROUPS),
    form_specs.group_fields(HEARTBEAT_GROUPS),
]
NAMES = sorted({f.name for fields in FORMS for f in fields} | {"auth_password" + CLEAR})


@settings(max_examples=300, deadline=None)
@given(
    index=st.integers(0, len(FORMS) - 1),
    items=st.lists(st.tuples(st.sampled_from(NAMES) | st.text(max_size=8), st.text(max_size=40))),
    creating=st.booleans(),
)
def test_any_posted_form_becomes_a_body(
    index: int, items: list[tuple[str, str]], creating: bool
) -> None:
    fields = FORMS[index]
    raw = posted(fields, FormData([(name, value) for name, value in items]))
    body = body_of(fields, raw, creating=creating, current={"request_headers": [{"id": 1}]})
    assert set(body) <= {f.name for f in fields}
    for f in fields:
        if f.input == "checkbox":
            assert body[f.name] is (f.name in dict(items))


_line = (
    st.text(alphabet=string.ascii_letters + string.digits + " ./@-", min_size=1, max_size=20)
    .map(str.strip)
    .filter(bool)
)
_token = st.text(alphabet=string.ascii_letters + string.digits + "-_", min_size=1, max_size=12)


def _value(f: Field) -> st.SearchStrategy[Any]:
    if f.input == "checkbox":
        return st.booleans()
    if f.input == "number":
        return st.integers(-(10**12), 10**12)
    if f.input == "choices":
        if not f.choices:  # the monitor's locations, where there are none to name
            return st.just([])
        return st.lists(st.sampled_from([value for value, _ in f.choices]), unique=True)
    if f.input == "select":
        values = [int(v) if f.numeric_choices else v for v, _ in f.choices]
        return st.sampled_from(values) if values else st.none()
    if f.input == "list":
        return st.lists(st.integers(100, 599), min_size=1, max_size=5)
    if f.input == "headers":
        return st.lists(st.fixed_dictionaries({"name": _token, "value": _line}), min_size=1)
    if f.input == "pairs":
        return st.dictionaries(_token, _line, min_size=1, max_size=4)
    if f.input == "secret":
        return st.none()
    return st.text(min_size=1, max_size=60).filter(
        lambda t: t.strip() and "\n" not in t and "\r" not in t
    )


def _submitted(f: Field, raw: Raw) -> list[tuple[str, str]]:
    """What a browser posts for a field showing raw."""
    if isinstance(raw, bool):
        return [(f.name, "on")] if raw else []
    if isinstance(raw, list):
        return [(f.name, item) for item in raw]
    return [(f.name, raw)]


@st.composite
def _shown(draw: st.DrawFn) -> tuple[list[Field], dict[str, Any]]:
    fields = draw(st.sampled_from(FORMS))
    return fields, {f.name: draw(_value(f)) for f in fields}


@settings(max_examples=300, deadline=None)
@given(_shown())
def test_a_value_shown_comes_back_as_it_was(shown: tuple[list[Field], dict[str, Any]]) -> None:
    fields, values = shown
    form = FormData([item for f in fields for item in _submitted(f, raw_of(f, values[f.name]))])
    assert posted(fields, form) == initial(fields, values)
    body = body_of(fields, posted(fields, form), creating=False)
    for f in fields:
        if f.input == "secret":
            assert f.name not in body  # left empty: kept
        else:
            assert body[f.name] == values[f.name], f.name


def test_problems_go_beside_their_fields() -> None:
    problems = [
        ("port", "port must be a port number"),
        ("port", "port is required for tcp monitors"),
        (None, "body must be a JSON object"),
        ("team_name", "team_name must be the API token's team"),
    ]
    assert field_errors(problems, ["port", "url"]) == {
        "port": "port must be a port number port is required for tcp monitors",
        FORM_ERROR: "body must be a JSON object team_name must be the API token's team",
    }


def test_creating_leaves_empty_fields_out_and_editing_clears_them() -> None:
    fields = form_specs.monitor_fields("tcp", {})
    raw = posted(fields, FormData([("url", "db.example.com"), ("port", ""), ("regions", "eu")]))
    created = body_of(fields, raw, creating=True)
    assert "port" not in created and created["regions"] == ["eu"] and created["email"] is False
    edited = body_of(fields, raw, creating=False)
    assert edited["port"] is None and edited["url"] == "db.example.com"
    assert (
        body_of(fields, posted(fields, FormData([("check_frequency", "often")])), creating=True)[
            "check_frequency"
        ]
        == "often"
    )  # sent as typed: the domain names the problem
