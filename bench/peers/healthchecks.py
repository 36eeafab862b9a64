"""Healthchecks for the peer benchmark: installed from a checkout into a folder of its own,
served as its Docker image serves it (uWSGI, docker/uwsgi.ini's settings), with DEBUG off.

Install: the checkout is copied to WORK/healthchecks/app; a virtualenv in
WORK/healthchecks/venv gets `pip install -r requirements.txt uwsgi` (its Dockerfile adds uwsgi
the same way). requirements.txt pins pycurl, which builds against libcurl's headers: when
`curl-config` is missing the script runs `apt-get install -y libcurl4-openssl-dev` (Debian,
as root). Django 6.1 needs Python >= 3.12 (`--hc-python`).

Serving: `uwsgi` with the settings of docker/uwsgi.ini (master, 4 processes of 1 thread,
http-socket, harakiri 10, buffer-size 32768, post-buffering 16192, thunder-lock, enable-threads,
and its two attached daemons `manage.py sendalerts` and `manage.py sendreports --loop`: the
alerting loop is Healthchecks' engine), bound to 127.0.0.1:PORT; `manage.py migrate` runs
before (the image's pre-app hook). Left out: the static files (not served to the API or the
pings) and the IPv6 socket. SQLite (its default) in a data folder of the run; DEBUG=False.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from peers.procs import running

PROCESSES = 4
THREADS = 1
UWSGI_INI = """[uwsgi]
strict
master
die-on-term
http-socket = 127.0.0.1:{port}
harakiri = 10
buffer-size = 32768
post-buffering = 16192
processes = {processes}
auto-procname
enable-threads
threads = {threads}
chdir = {app}
virtualenv = {venv}
module = hc.wsgi:application
thunder-lock
disable-write-exception
max-fd = 10000
attach-daemon = {venv}/bin/python ./manage.py sendalerts --skip-checks
attach-daemon = {venv}/bin/python ./manage.py sendreports --loop --skip-checks
"""

SEED = """
from hc.accounts.models import Profile, Project
from hc.api.models import Check
from django.contrib.auth.models import User
user = User.objects.create_user("bench", "bench@example.org", "bench-only-password")
Profile.objects.for_user(user)
project = Project(owner=user, name="bench")
key = project.set_api_key()
project.save()
Check.objects.bulk_create([Check(project=project, name=f"check {i}") for i in range(COUNT)])
print("KEY", key)
print("CODE", Check.objects.filter(project=project).order_by("id").first().code)
"""


@dataclass(frozen=True)
class Install:
    app: Path
    venv: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"


def describe() -> str:
    return (
        f"Healthchecks under uWSGI with its docker/uwsgi.ini's settings: {PROCESSES} processes x "
        f"{THREADS} thread, master, http-socket on 127.0.0.1, harakiri 10, buffer-size 32768, "
        "post-buffering 16192, thunder-lock, enable-threads, `manage.py sendalerts` and "
        "`manage.py sendreports --loop` attached; SQLite; DEBUG=False (the ini is written "
        "beside its database in --work)"
    )


def install(checkout: Path, work: Path, python: str) -> Install:
    """Copy the checkout and make its virtualenv (once: kept while requirements.txt is the
    same)."""
    root = work / "healthchecks"
    app, venv = root / "app", root / "venv"
    if not (checkout / "manage.py").exists():
        raise SystemExit(f"--healthchecks {checkout}: not a Healthchecks work tree")
    if app.exists():
        shutil.rmtree(app)
    shutil.copytree(checkout, app, ignore=shutil.ignore_patterns(".git", "*.sqlite"))
    requirements = (app / "requirements.txt").read_bytes()
    stamp = venv / "bench-installed"
    digest = hashlib.sha256(requirements).hexdigest()
    if stamp.exists() and stamp.read_text() == digest:
        return Install(app, venv)
    if shutil.which("curl-config") is None:
        print("libcurl headers missing (pycurl): apt-get install -y libcurl4-openssl-dev")
        subprocess.run(["apt-get", "install", "-y", "libcurl4-openssl-dev"], check=True)
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "pip"), "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "-r", str(app / "requirements.txt"), "uwsgi"], check=True)
    stamp.write_text(digest)
    return Install(app, venv)


def environment(data: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    env.update(
        DEBUG="False",
        SECRET_KEY=secrets.token_urlsafe(32),
        DB_NAME=str(data / "hc.sqlite"),
        SITE_ROOT=f"http://127.0.0.1:{port}",
        ALLOWED_HOSTS="127.0.0.1",
        REGISTRATION_OPEN="False",
        UWSGI_PROCESSES=str(PROCESSES),
    )
    return env


@dataclass(frozen=True)
class Served:
    pid: int
    base: str
    api_key: str
    ping_path: str


@contextmanager
def serve(inst: Install, data: Path, port: int, checks: int) -> Iterator[Served]:
    """A fresh database with one project of `checks` checks, served; yields its API key and
    the first check's ping path."""
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    env = environment(data, port)
    log = data / "healthchecks.log"
    manage = [str(inst.python), "manage.py"]
    with log.open("ab") as out:
        subprocess.run(
            [*manage, "migrate", "-v0"],
            cwd=inst.app,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=True,
        )
    done = subprocess.run(
        [*manage, "shell", "-c", SEED.replace("COUNT", str(checks))],
        cwd=inst.app,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    ini = data / "uwsgi.ini"
    ini.write_text(
        UWSGI_INI.format(
            port=port, processes=PROCESSES, threads=THREADS, app=inst.app, venv=inst.venv
        )
    )
    base = f"http://127.0.0.1:{port}"
    cmd = [str(inst.venv / "bin" / "uwsgi"), str(ini)]
    # Healthchecks' own status endpoint (a SELECT 1).
    ready = f"{base}/api/v3/status/"
    with running(cmd, env=env, cwd=inst.app, log=log, ready_url=ready) as pid:
        yield Served(pid, base, found["KEY"], f"/ping/{found['CODE']}")
