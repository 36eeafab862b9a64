"""Forms as lists of field specs derived from the domain's own request models.

A field's input (text, number, checkbox, select, textarea …) follows from its type in the
pydantic model the API validates with; its hint from the model's description and bounds. The
console never checks a value itself: `body_of` turns a posted form into the JSON body the API
would receive (numbers as numbers when they are numbers, anything else sent as typed so the
domain's own message names it), the domain's service validates it, and `field_errors` puts
each of the domain's problems beside the field it names.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import BaseModel

from watchpost.errors import Problem

Input = Literal[
    "text",
    "textarea",
    "number",
    "checkbox",
    "select",
    "choices",
    "list",
    "headers",
    "pairs",
    "secret",
]
Raw = str | bool | list[str]
"""A field's value as the form holds it: text, a checkbox's state, or the boxes ticked."""
FORM_ERROR: Final = "form"
"""The errors' key of a problem that names no field (shown in the summary only)."""
CLEAR: Final = "__clear"
"""Suffix of a secret's "remove it" checkbox."""


@dataclass(frozen=True)
class Field:
    """One input of a form."""

    name: str
    label: str
    input: Input
    hint: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    """(value, words) of a select or of a group of checkboxes."""
    numeric_choices: bool = False
    """A select whose values are numbers in the body."""
    required: bool = False
    section: str = ""


# ------------------------------------------------------------------ derived from a model


def _unwrap(annotation: Any) -> tuple[list[Any], list[Any]]:
    """The non-None types of an (optional, annotated) annotation, and the metadata found."""
    metadata: list[Any] = []
    todo, found = [annotation], []
    while todo:
        item = todo.pop(0)
        origin = get_origin(item)
        if origin is Annotated:
            base, *extra = get_args(item)
            metadata += extra
            todo.insert(0, base)
        elif origin in (Union, types.UnionType):
            todo[0:0] = list(get_args(item))
        elif item is not type(None):
            found.append(item)
    return found, metadata


LONG_TEXT: Final = 4096
"""A text field that may hold more than this many characters is a textarea."""


def _parts(metadata: Iterable[Any]) -> list[Any]:
    return [part for item in metadata for part in getattr(item, "metadata", [item])]


def _long(metadata: Iterable[Any]) -> bool:
    return any(
        isinstance(part, annotated_types.MaxLen) and part.max_length > LONG_TEXT
        for part in _parts(metadata)
    )


def _bounds(metadata: Iterable[Any]) -> str:
    low = high = None
    for part in _parts(metadata):
        if isinstance(part, annotated_types.Ge):
            low = part.ge
        elif isinstance(part, annotated_types.Le):
            high = part.le
    if low is not None and high is not None:
        return f"{low} to {high}"
    return f"at least {low}" if low is not None else f"at most {high}" if high is not None else ""


def words(name: str) -> str:
    """A field name as a label's words: check_frequency → Check frequency."""
    text = name.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def _input_of(kinds: list[Any]) -> tuple[Input, tuple[Any, ...]]:
    """The input a field's types call for, and the allowed values of a choice."""
    if kinds == [bool]:
        return "checkbox", ()
    if len(kinds) == 1 and get_origin(kinds[0]) is Literal:
        return "select", get_args(kinds[0])
    if len(kinds) == 1 and get_origin(kinds[0]) is list:
        inner, _ = _unwrap(get_args(kinds[0])[0])
        if len(inner) == 1 and get_origin(inner[0]) is Literal:
            return "choices", get_args(inner[0])
        if len(inner) == 1 and isinstance(inner[0], type) and issubclass(inner[0], BaseModel):
            return "headers", ()
        return "list", ()
    if len(kinds) == 1 and get_origin(kinds[0]) is dict:
        return "pairs", ()
    if kinds == [int]:
        return "number", ()
    return "text", ()


def field_of(
    model: type[BaseModel],
    name: str,
    *,
    label: str | None = None,
    hint: str | None = None,
    required: bool = False,
    secret: bool = False,
    section: str = "",
    choices: Sequence[tuple[str, str]] | None = None,
) -> Field:
    """The field `name` of model as an input: its kind and hint from the model's type,
    bounds and description; `choices` (the team's groups …) make it a select."""
    info = model.model_fields[name]
    kinds, metadata = _unwrap(info.annotation)
    kind, allowed = _input_of(kinds)
    bounds = _bounds([*info.metadata, *metadata])
    if kind == "text" and _long([*info.metadata, *metadata]):
        kind = "textarea"
    # A reference's description speaks of the API's JSON (ids, null): the select says it all.
    described = "" if choices is not None else info.description or ""
    said = [hint if hint is not None else described]
    if bounds and kind == "number" and hint is None and len(bounds) < 20:
        said.append(f"{bounds}.")  # not the bounds of a column's integer type
    numeric = bool(allowed) and all(isinstance(value, int) for value in allowed)
    options = tuple((str(value), str(value)) for value in allowed)
    if choices is not None:  # the team's groups, policies …: ids when the model takes ints
        kind, options, numeric = "select", tuple(choices), int in kinds
    return Field(
        name=name,
        label=label or words(name),
        input="secret" if secret else kind,
        hint=" ".join(part for part in said if part),
        choices=options,
        numeric_choices=numeric,
        required=required,
        section=section,
    )


# ------------------------------------------------------------------------ form values


def raw_of(field: Field, value: Any) -> Raw:
    """An API value (an attribute, a default) as the form shows it."""
    if field.input == "checkbox":
        return bool(value)
    if field.input == "choices":
        return [str(item) for item in value or []]
    if field.input == "secret" or value is None:
        return ""
    if field.input == "list":
        return ", ".join(str(item) for item in value)
    if field.input == "headers":
        return "\n".join(f"{item['name']}: {item['value']}" for item in value)
    if field.input == "pairs":
        return "\n".join(f"{key}={item}" for key, item in dict(value).items())
    return str(value)


def initial(fields: Iterable[Field], values: Mapping[str, Any]) -> dict[str, Raw]:
    return {field.name: raw_of(field, values.get(field.name)) for field in fields}


def posted(fields: Iterable[Field], form: Any) -> dict[str, Raw]:
    """The fields' values from a posted form (a starlette FormData or a multidict)."""
    values: dict[str, Raw] = {}
    for field in fields:
        if field.input == "checkbox":
            values[field.name] = form.get(field.name) is not None
        elif field.input == "choices":
            values[field.name] = [str(item) for item in form.getlist(field.name)]
        else:
            values[field.name] = str(form.get(field.name) or "")
        if field.input == "secret" and form.get(field.name + CLEAR) is not None:
            values[field.name + CLEAR] = True
    return values


def _number(text: str) -> int | str:
    """A whole number when the text is one; else the text, for the domain to name."""
    stripped = text.strip()
    digits = stripped[1:] if stripped[:1] in "+-" else stripped
    if digits.isascii() and digits.isdigit() and len(digits) <= 20:
        return int(stripped)
    return text


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _headers(text: str, current: Any) -> list[dict[str, Any]]:
    """ "Name: value" lines; a header the object already has (same name) keeps its id."""
    unused = [dict(item) for item in current or [] if isinstance(item, Mapping)]
    headers: list[dict[str, Any]] = []
    for line in _lines(text):
        name, colon, value = line.partition(":")
        header: dict[str, Any] = {"name": name.strip()}
        if colon:
            header["value"] = value.strip()
        match = next((item for item in unused if item.get("name") == header["name"]), None)
        if match is not None and "id" in match:
            unused.remove(match)
            header = {"id": str(match["id"]), **header}
        headers.append(header)
    return headers


def _pairs(text: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for line in _lines(text):
        key, _, value = line.partition("=")
        pairs[key.strip()] = value.strip()
    return pairs


def _json(field: Field, raw: Raw, current: Any) -> Any:
    """One field's raw value as the API's JSON value (None: empty)."""
    if field.input == "checkbox":
        return bool(raw)
    if field.input == "choices":
        return list(raw) if isinstance(raw, list) else [str(raw)]
    text = raw if isinstance(raw, str) else ""
    if not text.strip():
        return None
    if field.input == "number" or (field.input == "select" and field.numeric_choices):
        return _number(text)
    if field.input == "list":
        return [_number(part) for part in text.replace("\n", ",").split(",") if part.strip()]
    if field.input == "headers":
        return _headers(text, current)
    if field.input == "pairs":
        return _pairs(text)
    return text


def body_of(
    fields: Iterable[Field],
    raw: Mapping[str, Raw],
    *,
    creating: bool,
    current: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON body the API would receive for these values. Creating, an empty field is left
    out (the domain's default applies); editing, it is sent as null (cleared, or the domain
    says it cannot be). A secret left empty is left out: the stored one is kept."""
    body: dict[str, Any] = {}
    for field in fields:
        if field.input == "secret" and raw.get(field.name + CLEAR) and not creating:
            body[field.name] = None
            continue
        value = _json(field, raw.get(field.name, ""), (current or {}).get(field.name))
        if value is None and (creating or field.input == "secret"):
            continue
        body[field.name] = value
    return body


def field_errors(problems: Iterable[Problem], shown: Iterable[str] = ()) -> dict[str, str]:
    """The domain's problems as field → message (several for one field joined); a problem of
    no field, or of a field the form does not show, goes under FORM_ERROR."""
    names = set(shown)
    errors: dict[str, str] = {}
    for name, message in problems:
        key = name if name is not None and (not names or name in names) else FORM_ERROR
        errors[key] = f"{errors[key]} {message}" if key in errors else message
    return errors
