"""incidents.transitions.apply: the one place an incident's state and timeline change."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from fastapi import FastAPI
from sqlalchemy import select

import watchpost
from tests.factories.api import Api
from watchpost.clock import FrozenClock
from watchpost.context import AppContext
from watchpost.errors import Conflict
from watchpost.incidents import transitions
from watchpost.incidents.models import IncidentEvent
from watchpost.incidents.transitions import Change, apply, start

SOURCE = Path(watchpost.__file__).parent
HOME = SOURCE / "incidents" / "transitions.py"
STATE_COLUMNS = {
    "started_at",
    "acknowledged_at",
    "acknowledged_by",
    "resolved_at",
    "resolved_by",
}
MODELS = "watchpost.incidents.models"


def _row_names(tree: ast.AST) -> set[str]:
    """The names a module gives the incident models it imports (an incident and its timeline;
    comments are rows of their own)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == MODELS
        for alias in node.names
        if alias.name in ("Incident", "IncidentEvent")
    }


def _writes_of_incidents(tree: ast.AST) -> list[str]:
    """Lines of `tree` that set an incident's state or make or write incident rows."""
    rows = _row_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in ast.walk(target):
                    if isinstance(part, ast.Attribute) and part.attr in STATE_COLUMNS:
                        found.append(f"{node.lineno}: sets .{part.attr}")
        elif isinstance(node, ast.Call):
            called = ast.unparse(node.func)
            first = ast.unparse(node.args[0]) if node.args else ""
            if called in rows:
                found.append(f"{node.lineno}: builds {called}")
            elif called.split(".")[-1] in ("update", "insert") and any(
                row in first for row in rows
            ):
                found.append(f"{node.lineno}: {called}({first})")
    return found


def test_nothing_but_apply_changes_an_incident() -> None:
    """Structural: no module besides incidents/transitions.py sets an incident's state
    columns, builds Incident or IncidentEvent rows, or UPDATEs / INSERTs them."""
    offenders = {
        str(path.relative_to(SOURCE)): lines
        for path in sorted(SOURCE.rglob("*.py"))
        if path != HOME and "migrations" not in path.parts
        for lines in [_writes_of_incidents(ast.parse(path.read_text()))]
        if lines
    }
    assert offenders == {}


def test_the_check_catches_a_write_that_bypasses_apply() -> None:
    bypass = (
        f"from {MODELS} import Incident, IncidentEvent\n"
        "incident.resolved_at = now\n"
        "session.add(IncidentEvent(incident_id=1, at=now, kind='resolved', text='x'))\n"
        "await session.execute(update(Incident).values(acknowledged_by='x'))\n"
    )
    assert len(_writes_of_incidents(ast.parse(bypass))) == 3


def test_every_change_has_its_effect() -> None:
    assert set(transitions._EFFECTS) == set(Change)


async def test_apply_sets_the_state_and_adds_one_timeline_entry(
    app: FastAPI, api: Api, clock: FrozenClock
) -> None:
    ctx: AppContext = app.state.ctx
    t0 = clock.now()
    async with ctx.db.write_sessions() as session, session.begin():
        incident = await start(session, team_id=api.team_id, name="db", cause="refused", at=t0)
        clock.advance(60)
        note = await apply(session, incident, Change.CHECK_FAILED, at=clock.now(), text="again")
        assert incident.updated_at == t0  # a note leaves the incident's columns alone
        clock.advance(60)
        acked = await apply(session, incident, Change.ACKNOWLEDGED, at=clock.now(), by="ann")
        assert (incident.acknowledged_at, incident.acknowledged_by) == (clock.now(), "ann")
        clock.advance(60)
        resolved = await apply(session, incident, Change.RESOLVED, at=clock.now(), by="bob")
        assert (incident.resolved_at, incident.resolved_by) == (clock.now(), "bob")
        assert (incident.updated_at, incident.status) == (clock.now(), "resolved")
        assert [(e.kind, e.text, e.by) for e in (note, acked, resolved)] == [
            ("check_failed", "again", None),
            ("acknowledged", "Acknowledged by ann", "ann"),
            ("resolved", "Resolved by bob", "bob"),
        ]


@pytest.mark.parametrize("change", [Change.ACKNOWLEDGED, Change.RESOLVED])
async def test_a_change_the_state_forbids_is_a_conflict_and_writes_nothing(
    app: FastAPI, api: Api, clock: FrozenClock, change: Change
) -> None:
    ctx: AppContext = app.state.ctx
    async with ctx.db.write_sessions() as session, session.begin():
        incident = await start(
            session, team_id=api.team_id, name="db", cause="refused", at=clock.now()
        )
        await apply(session, incident, Change.RESOLVED, at=clock.now(), by="bob")
        with pytest.raises(Conflict):
            await apply(session, incident, change, at=clock.now(), by="ann")
        events = (await session.scalars(select(IncidentEvent.kind))).all()
        assert (events, incident.acknowledged_at) == (["started", "resolved"], None)
