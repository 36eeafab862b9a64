"""The `watchpost location …` and `watchpost probe-token …` commands: the operator's
administration of the places checks run from and of the tokens their agents sign in with.

Like cli.py's commands, each imports what it uses when it runs and works in one transaction
(cli.py's, handed over by add_commands: this module imports nothing of cli.py, which may be
running as `__main__`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

    from watchpost.locations.models import Location

T = TypeVar("T")
REGIONS = ("us", "eu", "as", "au")


@dataclass(frozen=True)
class Cli:
    """What the commands take from cli.py: its transaction runner and its one-line error."""

    with_session: Callable[[Callable[..., Awaitable[Any]]], Any]
    error: type[Exception]


def _run(args: argparse.Namespace, work: Callable[[AsyncSession, datetime], Awaitable[T]]) -> T:
    """work(session, now) in one write transaction; a refusal of the locations' rules is the
    command's one-line error."""
    from watchpost.errors import ApiError, InvalidRequest, NotFound
    from watchpost.locations.tokens import ProbeTokenError

    cli: Cli = args.cli
    try:
        result: T = cli.with_session(work)
    except NotFound as exc:
        raise cli.error(exc.message.replace("Resource type ", "no ", 1)) from None
    except (ApiError, InvalidRequest, ProbeTokenError) as exc:
        raise cli.error(str(exc)) from None
    return result


async def _location(args: argparse.Namespace, session: AsyncSession, name: str) -> Location:
    from watchpost.errors import NotFound
    from watchpost.probing.service import get_by_name

    try:
        return await get_by_name(session, name)
    except NotFound:
        raise args.cli.error(
            f"no location named {name!r} (see 'watchpost location list')"
        ) from None


def _when(value: datetime | None) -> str:
    return "-" if value is None else f"{value:%Y-%m-%d %H:%M:%S}"


def cmd_location_list(args: argparse.Namespace) -> None:
    from sqlalchemy import select

    from watchpost.probing.service import list_locations, status
    from watchpost.teams.models import Team

    async def work(session: AsyncSession, _now: datetime) -> list[tuple[Location, str]]:
        teams: dict[int | None, str] = dict(
            (await session.execute(select(Team.id, Team.name))).tuples().all()
        )
        return [(row, teams.get(row.team_id, "-")) for row in await list_locations(session)]

    print(
        f"{'NAME':<24} {'REGION':<6} {'PRIVATE':<7} {'TEAM':<20} {'SERVER':<6} "
        f"{'STATUS':<8} LAST SEEN (UTC)"
    )
    for location, team in _run(args, work):
        print(
            f"{location.name:<24} {location.region:<6} {_yes(location.private):<7} "
            f"{team:<20} {_yes(location.is_server):<6} {status(location):<8} "
            f"{_when(location.last_seen_at)}"
        )


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def cmd_location_create(args: argparse.Namespace) -> None:
    from sqlalchemy import select

    from watchpost.locations.models import DEFAULT_OFFLINE_AFTER_S
    from watchpost.probing.service import create_location
    from watchpost.teams.models import Team

    async def work(session: AsyncSession, now: datetime) -> Location:
        team_id = None
        if args.team is not None:
            team_id = await session.scalar(select(Team.id).where(Team.name == args.team))
            if team_id is None:
                raise args.cli.error(f"no team named {args.team!r}")
        return await create_location(
            session,
            name=args.name,
            region=args.region,
            private=args.private,
            team_id=team_id,
            offline_after_s=args.offline_after or DEFAULT_OFFLINE_AFTER_S,
            now=now,
        )

    location = _run(args, work)
    kind = "private " if location.private else ""
    print(f"created {kind}location {location.name} ({location.region})", file=sys.stderr)


def cmd_location_set(args: argparse.Namespace) -> None:
    from watchpost.probing.service import update_location

    async def work(session: AsyncSession, now: datetime) -> Location:
        return await update_location(
            session,
            await _location(args, session, args.location),
            name=args.name,
            region=args.region,
            private=args.private,
            offline_after_s=args.offline_after,
            now=now,
        )

    location = _run(args, work)
    print(f"location {location.name} updated", file=sys.stderr)


def cmd_location_delete(args: argparse.Namespace) -> None:
    from watchpost.probing.service import delete_location

    async def work(session: AsyncSession, now: datetime) -> None:
        await delete_location(session, await _location(args, session, args.location), now=now)

    _run(args, work)
    print(f"deleted location {args.location}", file=sys.stderr)


def cmd_probe_token_create(args: argparse.Namespace) -> None:
    from watchpost.locations.tokens import create_token

    async def work(session: AsyncSession, now: datetime) -> str:
        location = await _location(args, session, args.location)
        return await create_token(session, location=location, name=args.name, now=now)

    print(_run(args, work))


def cmd_probe_token_list(args: argparse.Namespace) -> None:
    from watchpost.locations.tokens import list_tokens

    async def work(session: AsyncSession, _now: datetime) -> list[Any]:
        return await list_tokens(session)

    print(
        f"{'PREFIX':<14} {'LOCATION':<24} {'NAME':<20} {'CREATED (UTC)':<20} "
        f"{'LAST USED':<20} STATUS"
    )
    for token, location in _run(args, work):
        state = f"revoked {_when(token.revoked_at)}" if token.revoked_at else "active"
        print(
            f"{token.prefix + '…':<14} {location.name:<24} {token.name or '-':<20} "
            f"{_when(token.created_at):<20} {_when(token.last_used_at):<20} {state}"
        )


def cmd_probe_token_revoke(args: argparse.Namespace) -> None:
    from watchpost.locations.tokens import revoke

    async def work(session: AsyncSession, now: datetime) -> str:
        return (await revoke(session, prefix=args.token_prefix, now=now)).prefix

    print(f"revoked probe token {_run(args, work)}…", file=sys.stderr)


def _seconds(text: str) -> int:
    if not text.isascii() or not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of seconds")
    return int(text)


def command_group(
    commands: Any,
    name: str,
    help: str,
    parser_class: type[argparse.ArgumentParser],
    **defaults: Any,
) -> Any:
    """The subparsers of a new command `name` made of subcommands (`watchpost NAME SUB …`),
    the subcommand chosen read as `NAME_command`; `defaults` go on the command's namespace."""
    group = commands.add_parser(name, help=help)
    group.set_defaults(**defaults)
    dest = f"{name.replace('-', '_')}_command"
    return group.add_subparsers(dest=dest, required=True, parser_class=parser_class)


def add_commands(
    commands: Any,
    parser_class: type[argparse.ArgumentParser],
    with_session: Callable[[Callable[..., Awaitable[Any]]], Any],
    error: type[Exception],
) -> None:
    """Adds `location` and `probe-token` to the `watchpost` command's subparsers; the
    commands run their work with with_session and end in error (cli.py's)."""
    from watchpost.agent.command import add_command as add_probe

    add_probe(commands)  # `watchpost probe`: the agent (its own flags only, no database)
    cli = Cli(with_session, error)
    sub = command_group(
        commands, "location", "manage the locations checks run from", parser_class, cli=cli
    )
    sub.add_parser("list", help="list locations and whether their agents report").set_defaults(
        run=cmd_location_list
    )
    create = sub.add_parser("create", help="add a location served by `watchpost probe` agents")
    create.add_argument("name", metavar="NAME", help="e.g. eu-west, office-berlin")
    create.add_argument("--region", required=True, choices=REGIONS)
    create.add_argument(
        "--private", action="store_true", help="check only the monitors that name it"
    )
    create.add_argument("--team", help="the team that owns it (private; only its monitors)")
    create.add_argument(
        "--offline-after", type=_seconds, help="seconds of silence before it is offline (90)"
    )
    create.set_defaults(run=cmd_location_create)
    change = sub.add_parser("set", help="rename a location or change its settings")
    change.add_argument("location", metavar="NAME")
    change.add_argument("--name", help="its new name")
    change.add_argument("--region", choices=REGIONS)
    change.add_argument("--offline-after", type=_seconds)
    shared = change.add_mutually_exclusive_group()
    shared.add_argument("--private", dest="private", action="store_true", default=None)
    shared.add_argument("--shared", dest="private", action="store_false", help="no longer private")
    change.set_defaults(run=cmd_location_set)
    delete = sub.add_parser("delete", help="delete a location no monitor names")
    delete.add_argument("location", metavar="NAME")
    delete.set_defaults(run=cmd_location_delete)

    tokens = command_group(
        commands,
        "probe-token",
        "manage the tokens probe agents sign in with",
        parser_class,
        cli=cli,
    )
    made = tokens.add_parser("create", help="create a token of a location; prints only the token")
    made.add_argument("--location", required=True, help="location name")
    made.add_argument("--name", help="a label, e.g. the agent's host")
    made.set_defaults(run=cmd_probe_token_create)
    tokens.add_parser("list", help="list probe tokens by prefix").set_defaults(
        run=cmd_probe_token_list
    )
    revoke = tokens.add_parser("revoke", help="revoke the probe token that starts with a prefix")
    revoke.add_argument("token_prefix", metavar="TOKEN_PREFIX", help="shown prefix or whole token")
    revoke.set_defaults(run=cmd_probe_token_revoke)
