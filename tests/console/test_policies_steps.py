"""The steps editor's pure parts: a stored step of every type survives the form unchanged
(row_of then step_of), the buttons move rows, the domain's problems land beside the right
field, and a policy reads as a sentence."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.datastructures import FormData, UploadFile

from watchpost.console import policies_steps as kit
from watchpost.console import policies_words as words
from watchpost.policies.models import Policy

STEPS: list[dict[str, Any]] = [
    {
        "type": "escalation",
        "wait_before": 90,
        "urgency_id": 7,
        "step_members": [
            {"type": "current_on_call", "id": None},
            {"type": "current_on_call", "id": 4},
            {"type": "entire_team"},
            {"type": "all_webhook_integrations"},
            {"type": "all_notification_channels"},
            {"type": "user", "id": 3},
            {"type": "user", "email": "ann@example.com"},
            {"type": "webhook", "id": 5},
            {"type": "notification_channel", "id": 6},
            {"type": "pagerduty_integration", "id": 8},
            {"type": "incident_metadata", "metadata_key": "owner"},
            {"type": "policy", "id": 9},
            {"type": "slack_integration", "id": 10},
        ],
    },
    {
        "type": "escalation",
        "wait_until_time": "09:00",
        "wait_until_timezone": "Europe/Prague",
        "step_members": [{"type": "entire_team"}],
    },
    {
        "type": "time_branching",
        "wait_before": 0,
        "timezone": "Europe/Prague",
        "days": ["mon", "fri"],
        "time_from": "09:00",
        "time_to": "17:00",
        "action_type": "escalate_to_policy",
        "policy_id": 9,
    },
    {
        "type": "metadata_branching",
        "metadata_key": "region",
        "metadata_values": [
            {"type": "String", "value": "eu"},
            {"type": "String", "value": "us"},
            {"type": "no_value"},
        ],
        "action_type": "do_not_escalate",
    },
    {
        "type": "instructions",
        "wait_before": 600,
        "instructions_comment": "Restart {service}",
        "instructions_reminder_enabled": True,
        "instructions_reminder_interval_hours": 2,
    },
    {"type": "resolve_remove", "wait_before": 3600, "action_type": "remove_incident"},
]


def _posted(rows: list[kit.Row]) -> FormData:
    """Rows as the browser posts them (checkboxes only when ticked)."""
    form: list[tuple[str, str | UploadFile]] = [("step_count", str(len(rows)))]
    for i, row in enumerate(rows):
        prefix = f"steps-{i}-"
        for name in kit.TEXTS:
            form.append((prefix + name, row[name]))
        for name in kit.LISTS:
            for value in row[name]:
                form.append((prefix + name, value))
        for name in kit.BOOLS:
            if row[name]:
                form.append((prefix + name, "on"))
    return FormData(form)


def _same_members(step: dict[str, Any]) -> dict[str, Any]:
    """Members compared as a set: the form groups them by kind."""
    members = step.get("step_members")
    if members is None:
        return step
    return {**step, "step_members": sorted(members, key=repr)}


@pytest.mark.parametrize("stored", STEPS, ids=[s["type"] for s in STEPS])
def test_every_step_type_survives_the_form(stored: dict[str, Any]) -> None:
    rows = kit.rows_posted(_posted([kit.row_of(stored)]))
    assert _same_members(kit.step_of(rows[0])) == _same_members(stored)


def test_the_buttons_move_add_and_remove_rows() -> None:
    rows = [kit.row_of(step) for step in STEPS[:3]]

    def kinds(found: list[kit.Row]) -> list[str]:
        return [str(row["type"]) for row in found]

    assert kinds(kit.moved(rows, "up-1", "")) == ["escalation", "escalation", "time_branching"]
    assert kinds(kit.moved(rows, "down-1", "")) == ["escalation", "time_branching", "escalation"]
    assert kinds(kit.moved(rows, "remove-0", "")) == ["escalation", "time_branching"]
    assert kinds(kit.moved(rows, "add", "instructions"))[-1] == "instructions"
    assert kinds(kit.moved(rows, "add", "nonsense"))[-1] == "escalation"
    assert kit.moved(rows, "up-0", "") == rows and kit.moved(rows, "down-2", "") == rows
    assert kit.moved(rows, "remove-9", "") == rows and kit.moved(rows, "up-x", "") == rows


def test_minutes_are_seconds_and_text_is_left_for_the_domain() -> None:
    assert kit.seconds_of("5") == 300 and kit.seconds_of("1.5") == 90
    assert kit.seconds_of("") is None and kit.seconds_of("soon") == "soon"
    assert kit.seconds_of("nan") == "nan"


def test_problems_go_beside_their_rows_fields() -> None:
    problems = [
        ("steps", "steps.0.wait_before must be a valid integer"),
        ("steps[1].step_members[0]", "steps[1].step_members[0]: no user of this team is named so"),
        ("steps[1].policy_id", "steps[1].policy_id must name an escalation policy of this team"),
        ("steps", "steps.1.step_members.2.id must be a valid integer"),
        ("name", "name must have at least 1 character"),
        ("team_name", "team_name must be the API token's team"),
    ]
    errors = kit.step_errors(problems, 2)
    assert errors["steps-0-wait"] == "Step 1: wait must be a valid integer"
    assert errors["steps-1-who"].startswith("Step 2: who no user of this team")
    assert "must be a valid integer" in errors["steps-1-who"]
    assert errors["steps-1-policy_id"] == (
        "Step 2: policy must name an escalation policy of this team"
    )
    assert errors["name"] == "name must have at least 1 character"
    assert errors["form"] == "team_name must be the API token's team"


def test_a_policy_reads_as_a_sentence() -> None:
    names = words.Names(
        users={"3": "Bob"},
        emails={"ann@example.com": "2"},
        webhooks={"5": "Ops hook"},
        calendars={"4": "Nights"},
        policies={"9": "Office", "11": "Last resort"},
        urgencies={"7": ("Loud", ("call", "email"))},
    )
    names.users["2"] = "Ann"
    policy = Policy(
        name="Main",
        repeat_count=3,
        repeat_delay=600,
        fallback_policy_id=11,
        steps=[
            {
                "type": "escalation",
                "wait_before": 300,
                "step_members": [{"type": "current_on_call", "id": None}],
                "urgency_id": 7,
            },
            {
                "type": "escalation",
                "wait_before": 900,
                "step_members": [{"type": "entire_team"}, {"type": "webhook", "id": 5}],
            },
            {
                "type": "escalation",
                "step_members": [
                    {"type": "user", "email": "ann@example.com"},
                    {"type": "current_on_call", "id": 4},
                ],
            },
            STEPS[2],
            STEPS[5],
        ],
    )
    assert words.describe(policy, names) == (
        "After 5 min, call and e-mail whoever is on call; "
        "15 min later, e-mail the whole team and notify webhook Ops hook; "
        "then e-mail Ann and whoever is on call in Nights; "
        "then between 09:00 and 17:00 (Europe/Prague) on Mon, Fri: run policy Office; "
        "1 h later, remove the incident; "
        "then repeat 3 times, 10 min apart; then run policy Last resort."
    )
    assert words.describe(Policy(name="Empty", steps=[], repeat_count=0), names) == (
        "No steps: tells nobody."
    )
