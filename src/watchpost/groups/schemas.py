"""Request and response shapes of groups, built per kind from its row of the kinds table."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, Field, create_model

from watchpost.groups.group_kinds import GroupKind
from watchpost.problems import accepted, checked, team_name_problems
from watchpost.validation import ClosedModel, Name, ShortText


@dataclass(frozen=True)
class GroupSchemas:
    create: type[BaseModel]
    update: type[BaseModel]
    """The create fields, all optional; null is a value of none of them."""
    attributes: type[BaseModel]
    read_only: frozenset[str]
    """Attributes a request may not send (a 422 saying so)."""

    @property
    def not_null(self) -> list[str]:
        """Fields a PATCH may leave out but not send as null (all but team_name)."""
        return [name for name in self.update.model_fields if name != TEAM_NAME]

    def parse_create(self, data: dict[str, Any], *, team_name: str) -> dict[str, Any]:
        """Every field's value, defaults filled in."""
        values = _parse(self.create, data, self.read_only, team_name).model_dump()
        values.pop(TEAM_NAME)
        return values

    def parse_update(self, data: dict[str, Any], *, team_name: str) -> dict[str, Any]:
        """The sent fields' values."""
        values = _parse(self.update, data, self.read_only, team_name)
        changes = values.model_dump(exclude_unset=True)
        changes.pop(TEAM_NAME, None)
        return changes


TEAM_NAME = "team_name"
"""Sent by the hosted API's clients (global tokens pick a team by it): here it must name the
token's team, and is not stored."""


def _parse(
    model: type[BaseModel], data: dict[str, Any], read_only: frozenset[str], team_name: str
) -> BaseModel:
    """Read-only fields, nulls and the model's own checks, every problem at once."""
    not_null = [name for name in model.model_fields if name != TEAM_NAME]
    parsed, problems = checked(model, data, read_only=read_only, not_null=not_null)
    return accepted(parsed, problems + team_name_problems(data.get(TEAM_NAME), team_name))


@cache
def schemas_of(kind: GroupKind) -> GroupSchemas:
    """The kind's models (named after its table's model: MonitorGroupCreate, ...)."""
    writable: dict[str, tuple[Any, Any, str | None]] = {  # type, default, description
        "name": (Name, ..., None),
        "sort_index": (kind.sort_index, 0, "Position; default 0."),
        TEAM_NAME: (ShortText | None, None, "Optional; must name the API token's team."),
    }
    shown: dict[str, Any] = {"name": str, "sort_index": int}
    if kind.pause_member is not None:
        pauses = f"Changing it pauses or resumes every {kind.member_type} the group holds now."
        writable["paused"] = (bool, False, pauses)
        shown["paused"] = bool
    shown[kind.team_attribute] = str if kind.team_attribute == "team_name" else int
    shown |= {"created_at": str, "updated_at": str}
    title = kind.model.__name__
    return GroupSchemas(
        create=_model(
            f"{title}Create",
            {
                name: (type_, Field(default, description=text))
                for name, (type_, default, text) in writable.items()
            },
        ),
        update=_model(
            f"{title}Update",
            {
                name: (type_ | None, Field(None, description=text))
                for name, (type_, _, text) in writable.items()
            },
        ),
        attributes=_model(
            f"{title}Attributes", {name: (type_, ...) for name, type_ in shown.items()}
        ),
        read_only=frozenset(shown) - set(writable),
    )


def _model(name: str, fields: dict[str, Any]) -> type[BaseModel]:
    model: type[BaseModel] = create_model(name, __base__=ClosedModel, **fields)
    return model
