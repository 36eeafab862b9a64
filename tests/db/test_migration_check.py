"""upgrade() on a database already at the newest schema does not load Alembic (it would stay
resident in the server); a database behind, new or stamped with an unknown revision is handed
to Alembic as before, on both backends."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError

from tests.factories.migrations import fresh_database
from tests.factories.processes import cli_env
from watchpost.db.migrate import alembic_config, head_revisions, stored_revisions, upgrade

BACKENDS = ["sqlite", "postgres"]

UPGRADE_AGAIN = """
import sys
from watchpost.db.migrate import upgrade

upgrade(sys.argv[1])
print(sorted(name for name in ("alembic", "mako", "pygments") if name in sys.modules))
"""


def alembic_heads() -> frozenset[str]:
    return frozenset(ScriptDirectory.from_config(alembic_config("sqlite:///unused.db")).get_heads())


def test_the_heads_read_from_the_files_are_alembics() -> None:
    assert head_revisions() == alembic_heads()


@pytest.mark.parametrize("kind", BACKENDS)
def test_a_current_database_is_recognised_without_alembic(kind: str, tmp_path: Path) -> None:
    with fresh_database(kind, tmp_path, prefix="wp_check") as url:
        assert stored_revisions(url) == frozenset()
        upgrade(url)
        assert stored_revisions(url) == alembic_heads()
        done = subprocess.run(  # noqa: S603  (fixed arguments)
            [sys.executable, "-c", UPGRADE_AGAIN, url],
            capture_output=True,
            text=True,
            env=cli_env(url),
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("kind", BACKENDS)
def test_a_database_behind_is_migrated(kind: str, tmp_path: Path) -> None:
    (head,) = alembic_heads()
    script = ScriptDirectory.from_config(alembic_config("sqlite:///unused.db")).get_revision(head)
    assert script is not None
    before = script.down_revision
    assert isinstance(before, str)
    with fresh_database(kind, tmp_path, prefix="wp_check") as url:
        command.upgrade(alembic_config(url), before)
        assert stored_revisions(url) == {before}
        upgrade(url)
        assert stored_revisions(url) == {head}


def test_an_unknown_revision_is_refused_as_alembic_refuses_it(tmp_path: Path) -> None:
    with fresh_database("sqlite", tmp_path) as url:
        upgrade(url)
        with sqlite3.connect(tmp_path / "m.db", isolation_level=None) as conn:
            conn.execute("UPDATE alembic_version SET version_num = '9999'")
        with pytest.raises(CommandError, match="9999"):
            upgrade(url)
