"""Roles and what each may do: one table, read by every check on the server (the console's
routes and the pages that hide a button alike)."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Role(StrEnum):
    VIEWER = "viewer"
    RESPONDER = "responder"
    ADMIN = "admin"
    OWNER = "owner"


ROLES: Final = tuple(Role)
"""Least to most: each role may do everything the ones before it may."""
_RANK: Final = {role: rank for rank, role in enumerate(ROLES)}


class Action(StrEnum):
    READ = "read"  # everything of the team
    RESPOND = "respond"  # incidents: acknowledge, resolve, reopen, comment
    OPERATE = "operate"  # pause, resume, check now
    EDIT = "edit"  # create, change, delete every object of the team
    MANAGE_PEOPLE = "manage_people"  # members, invitations, API tokens, audit log
    MANAGE_OWNERS = "manage_owners"  # owners, 2FA requirement, single sign-on


LEAST_ROLE: Final[dict[Action, Role]] = {
    Action.READ: Role.VIEWER,
    Action.RESPOND: Role.RESPONDER,
    Action.OPERATE: Role.RESPONDER,
    Action.EDIT: Role.ADMIN,
    Action.MANAGE_PEOPLE: Role.ADMIN,
    Action.MANAGE_OWNERS: Role.OWNER,
}


def allowed(role: str, action: Action) -> bool:
    """Whether a member of that role may do action (an unknown role may do nothing)."""
    rank = _RANK.get(Role(role)) if role in _RANK else None
    return rank is not None and rank >= _RANK[LEAST_ROLE[action]]


def may_grant(granter: str, role: str) -> bool:
    """Whether a member of role `granter` may give (or take away) `role`: admins manage
    everyone but owners, owners everyone."""
    if role == Role.OWNER:
        return allowed(granter, Action.MANAGE_OWNERS)
    return allowed(granter, Action.MANAGE_PEOPLE)
