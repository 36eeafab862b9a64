"""The `watchpost` command: serve, worker, migrate, token and user administration (locations
and probe tokens: cli_locations.py)."""

from __future__ import annotations

import argparse
import asyncio
import errno
import functools
import gc
import logging
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from watchpost import __version__, cli_locations, masking

# Each command imports what it uses: `--help` and usage errors answer without loading
# SQLAlchemy, pydantic or the app, and a command loads only its own part of Watchpost.
if TYPE_CHECKING:
    from sqlalchemy.exc import DBAPIError

    from watchpost.settings import Settings

T = TypeVar("T")


class CliError(Exception):
    """Something the operator must fix; printed as one line, exit status 1."""


def _settings() -> Settings:
    from pydantic import ValidationError

    from watchpost.settings import Settings

    try:
        settings = Settings()
        settings.async_database_url  # noqa: B018  (validates the URL scheme early)
    except ValidationError as exc:
        # Without the values: a URL setting may carry a password (WATCHPOST_SMTP_URL ...).
        problems = "; ".join(
            f"WATCHPOST_{'.'.join(map(str, error['loc'])).upper()}: {error['msg']}"
            for error in exc.errors(include_input=False, include_url=False)
        )
        raise CliError(f"invalid configuration: {problems}") from None
    except ValueError as exc:
        raise CliError(f"invalid configuration: {exc}") from None
    return settings


def _migrate(settings: Settings) -> None:
    from watchpost.db.migrate import upgrade

    path = settings.sqlite_path()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        upgrade(settings.async_database_url)
    except _database_errors() as exc:
        raise CliError(f"cannot reach the database: {_first_line(exc.orig or exc)}") from None


def _database_errors() -> tuple[type[DBAPIError], ...]:
    """The errors of a database that cannot be reached; none before SQLAlchemy is loaded
    (by then no command has touched a database, and `--help` stays without it)."""
    errors = sys.modules.get("sqlalchemy.exc")
    return () if errors is None else (errors.OperationalError, errors.DBAPIError)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _existing_database(settings: Settings) -> None:
    """Refuse to work on a default database that is not there: an administration command run
    from another folder would otherwise create an empty one (and a new secret.key) there.
    A database named by a setting is created as usual; serve, worker and migrate create it."""
    if settings.model_fields_set & {"database_url", "data_dir"}:
        return
    path = settings.sqlite_path()
    if path is not None and not path.exists():
        raise CliError(
            f"no database at {path.absolute()}: run this in the folder `watchpost serve` runs "
            "in, or name the database with WATCHPOST_DATABASE_URL or WATCHPOST_DATA_DIR"
        )


def _with_session(work: Callable[..., Awaitable[T]]) -> T:
    """Run work(session, clock) in one write transaction against the configured database
    (which must exist, unless a setting names it)."""
    from watchpost.context import AppContext

    settings = _settings()
    _existing_database(settings)
    _migrate(settings)

    async def run() -> T:
        ctx = AppContext.build(settings)
        try:
            async with ctx.db.write_sessions() as session, session.begin():
                return await work(session, ctx.clock.now())
        finally:
            await ctx.db.dispose()

    return asyncio.run(run())


def _logging(settings: Settings) -> None:
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    if logging.getLogger().level < logging.INFO:  # Apprise's debug lines carry its URLs' tokens
        logging.getLogger("apprise").setLevel(logging.INFO)
    masking.install()  # no log line of any command shows a URL's password or query values


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on host:port, or a one-line CliError saying why not.

    `serve` takes its address before anything else: a second server on a busy port stops
    here, before it migrates or starts a check engine beside the first one.
    """
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise CliError(f"serve: cannot listen on {host}:{port}: {exc.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        # As uvicorn does: a restart may bind while the old connections wait out TIME_WAIT;
        # listen() still fails while another socket listens there.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise CliError(f"serve: {host}:{port} is already in use") from None
        raise CliError(f"serve: cannot listen on {host}:{port}: {exc.strerror}") from None
    return sock


def _url_host(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def cmd_serve(args: argparse.Namespace) -> None:
    import uvicorn

    from watchpost.app import create_app
    from watchpost.http.server import protocol

    settings = _settings()
    _logging(settings)
    sock = _listen(args.host, args.port)
    _migrate(settings)
    # uvicorn announces its address only for sockets it binds itself.
    bound = sock.getsockname()
    logging.getLogger("watchpost.serve").info(
        "serving on http://%s:%d (Press CTRL+C to quit)", _url_host(bound[0]), bound[1]
    )
    config = uvicorn.Config(
        create_app(settings, engine=not args.no_engine, retention=True),
        log_level=settings.log_level.lower(),
        http=protocol(settings.header_timeout),
        proxy_headers=True,
        # Open streams (a live tail's Server-Sent Events) never end on their own: without a
        # bound, uvicorn would wait for them forever on shutdown.
        timeout_graceful_shutdown=5,
    )
    uvicorn.Server(config).run(sockets=[sock])


def cmd_worker(_args: argparse.Namespace) -> None:
    from watchpost.context import AppContext
    from watchpost.delivery.worker import Deliverer
    from watchpost.engine.loop import Engine
    from watchpost.incidents.policy_actions import PolicyActions
    from watchpost.logs.retention import RetentionLoop
    from watchpost.subscriptions import receiver

    settings = _settings()
    _logging(settings)
    _migrate(settings)
    receiver.install()  # status page subscribers: a receiver of the delivery system

    async def run() -> None:
        ctx = AppContext.build(settings)
        engine = Engine(ctx)
        deliverer = Deliverer(ctx, incidents=PolicyActions(ctx.clock))
        # Logs retention runs here only on a ClickHouse store: the embedded one belongs to
        # the serving process (one process opens its files).
        retention = (
            RetentionLoop(ctx.db, ctx.logs_to_prune, ctx.clock, delay=settings.logs_retention_delay)
            if settings.logs_url
            else None
        )

        def stop() -> None:
            engine.stop()
            deliverer.stop()
            if retention is not None:
                retention.stop()

        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop)
        # As `serve` does (app.py): what is built by now lives as long as the process, and a
        # full collection walking it (≈ 170,000 objects, ≈ 90 ms) would stall the checks.
        gc.freeze()
        loops = [engine.run_forever(), deliverer.run_forever()]
        if retention is not None:
            loops.append(retention.run_forever())
        try:
            await asyncio.gather(*loops)
        finally:
            await ctx.close_logs()
            await ctx.db.dispose()

    asyncio.run(run())


def cmd_migrate(_args: argparse.Namespace) -> None:
    _migrate(_settings())
    print("database is up to date", file=sys.stderr)


def cmd_token_create(args: argparse.Namespace) -> None:
    from watchpost import admin

    work = functools.partial(admin.create_token, team_name=args.team)
    print(_with_session(lambda session, now: work(session, now=now)))


def cmd_token_list(_args: argparse.Namespace) -> None:
    from watchpost.teams.service import list_tokens

    rows = _with_session(lambda session, _now: list_tokens(session))
    print(f"{'PREFIX':<14} {'TEAM':<24} {'CREATED':<26} STATUS")
    for token, team in rows:
        state = f"revoked {token.revoked_at:%Y-%m-%d %H:%M}" if token.revoked_at else "active"
        print(
            f"{token.prefix + '…':<14} {team:<24} {token.created_at:%Y-%m-%d %H:%M:%S} UTC    {state}"
        )


def cmd_token_revoke(args: argparse.Namespace) -> None:
    from watchpost import admin
    from watchpost.teams.service import TokenError

    try:
        token = _with_session(
            lambda session, now: admin.revoke(session, prefix=args.token_prefix, now=now)
        )
    except TokenError as exc:
        raise CliError(str(exc)) from None
    print(f"revoked token {token.prefix}…", file=sys.stderr)


def cmd_user_create(args: argparse.Namespace) -> None:
    from watchpost import admin
    from watchpost.console.paths import link_url
    from watchpost.people.accounts import PeopleError

    password = sys.stdin.readline().rstrip("\r\n") if args.password_stdin else None
    work = functools.partial(
        admin.add_person,
        team_name=args.team,
        email=args.email,
        name=args.name,
        role=args.role,
        password=password,
    )
    try:
        user_id, token = _with_session(lambda session, now: work(session, now=now))
    except PeopleError as exc:
        raise CliError(str(exc)) from None
    if token is None:
        print(user_id)
        return
    base = _settings().public_base or "http://127.0.0.1:8000"
    print(link_url(base, token))
    print(
        f"person {user_id} is {args.role} of {args.team!r}; the link above sets their password "
        "and works once, for 24 hours (WATCHPOST_PUBLIC_URL sets its address)",
        file=sys.stderr,
    )


def cmd_user_list(args: argparse.Namespace) -> None:
    from watchpost.people.accounts import list_users

    rows = _with_session(lambda session, _now: list_users(session, team_name=args.team))
    print(f"{'ID':<8} {'TEAM':<24} {'ROLE':<10} {'EMAIL':<32} NAME")
    for user, team, role in rows:
        print(f"{user.id:<8} {team:<24} {role:<10} {user.email:<32} {user.name}")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise CliError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="watchpost", description="Watchpost: self-hosted monitoring.")
    parser.add_argument("--version", action="version", version=f"watchpost {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    serve = commands.add_parser("serve", help="apply pending migrations, then serve the API")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument(
        "--no-engine",
        action="store_true",
        help="serve only the API; run checks and alert delivery in separate `watchpost worker` "
        "processes",
    )
    serve.set_defaults(run=cmd_serve)

    worker = commands.add_parser(
        "worker",
        help="apply pending migrations, then run only the check engine (no API)",
        description="Run the check engine and alert delivery alone. Any number of workers, "
        "on any machines, may share one PostgreSQL database: each claims due checks and "
        "deliveries with a lease, so no check runs twice and a stopped worker's work is taken "
        "over. Stops cleanly on SIGTERM.",
    )
    worker.set_defaults(run=cmd_worker)

    migrate = commands.add_parser("migrate", help="apply pending migrations and exit")
    migrate.set_defaults(run=cmd_migrate)

    tokens = cli_locations.command_group(commands, "token", "manage team API tokens", _Parser)
    create = tokens.add_parser(
        "create", help="create a token (and the team if needed); prints only the token"
    )
    create.add_argument("--team", required=True, help="team name")
    create.set_defaults(run=cmd_token_create)
    tokens.add_parser("list", help="list tokens by prefix").set_defaults(run=cmd_token_list)
    revoke = tokens.add_parser("revoke", help="revoke the token that starts with a prefix")
    revoke.add_argument("token_prefix", metavar="TOKEN_PREFIX", help="shown prefix or whole token")
    revoke.set_defaults(run=cmd_token_revoke)

    people = cli_locations.command_group(commands, "user", "manage the people of a team", _Parser)
    user_create = people.add_parser(
        "create", help="add a person to a team; prints a link that sets their password (or an id)"
    )
    user_create.add_argument("--team", required=True, help="team name (created if needed)")
    user_create.add_argument("--email", required=True)
    user_create.add_argument("--name", required=True)
    user_create.add_argument(
        "--role",
        default="admin",
        choices=["owner", "admin", "responder", "viewer"],
        help="the person's role in the team (default admin)",
    )
    user_create.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the person's password from the first line of standard input (for scripts)",
    )
    user_create.set_defaults(run=cmd_user_create)
    user_list = people.add_parser("list", help="list users")
    user_list.add_argument("--team", default=None, help="only this team's users")
    user_list.set_defaults(run=cmd_user_list)
    cli_locations.add_commands(commands, _Parser, _with_session, CliError)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        args.run(args)
    except CliError as exc:
        print(f"watchpost: error: {exc}", file=sys.stderr)
        return 2 if "--help" in str(exc) else 1
    except _database_errors() as exc:
        print(
            f"watchpost: error: cannot reach the database: {_first_line(exc.orig or exc)}",
            file=sys.stderr,
        )
        return 1
    except OSError as exc:
        print(f"watchpost: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
