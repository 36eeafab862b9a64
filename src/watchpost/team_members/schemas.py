"""Response shapes of team members (the hosted API's /api/v2/team-members)."""

from __future__ import annotations

from watchpost.validation import ClosedModel


class TeamMemberAttributes(ClosedModel):
    email: str
    first_name: str
    last_name: str
    role: str
    role_id: int | None
    created_at: str
    invited_at: str | None
    mobile_app_platforms: list[str]
    team_name: str


ABOUT = (
    "The team's people (added with `watchpost user create`): `first_name` is the first word "
    "of the person's name, `last_name` the rest. `role` is the person's role in the team: "
    "`owner`, `admin`, `responder` or `viewer` (the console's roles); `role_id` and "
    "`invited_at` are null, `mobile_app_platforms` empty. With `email`, the answer is the one "
    'member with that address (`{"data": {…}}`, not a list; case-insensitive), or a 404. '
    "People are invited and removed in the console."
)
