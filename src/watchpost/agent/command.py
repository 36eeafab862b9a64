"""`watchpost probe --server URL --token TOKEN [--location NAME]`: flags only, no database,
no data folder, no secret key; stops cleanly on SIGTERM or Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    probe = commands.add_parser(
        "probe",
        help="run a location's checks on this machine and report them to a Watchpost server",
        description="A probe agent: asks the server for its location's due checks, runs them "
        "with the engine's probes and sends the results back. It needs only these flags (no "
        "database, no files) and no inbound port.",
    )
    probe.add_argument("--server", required=True, help="the server's URL (https)")
    probe.add_argument(
        "--token",
        default=os.environ.get("WATCHPOST_PROBE_TOKEN"),
        help="a probe token (`watchpost probe-token create`); default $WATCHPOST_PROBE_TOKEN",
    )
    probe.add_argument("--location", default=None, help="refuse to run for another location")
    probe.add_argument(
        "--concurrency", type=int, default=200, help="checks run at once (default 200)"
    )
    probe.add_argument(
        "--insecure-http",
        action="store_true",
        help="allow a plain http server address other than 127.0.0.1 / ::1",
    )
    probe.set_defaults(run=run_probe)


def run_probe(args: argparse.Namespace) -> None:
    from watchpost.agent.runner import Agent, AgentError
    from watchpost.agent.wire import server_problem

    problem = server_problem(args.server, insecure_http=args.insecure_http)
    if problem is None and not args.token:
        problem = "--token (or WATCHPOST_PROBE_TOKEN) is required"
    if problem is not None:
        print(f"watchpost: error: {problem}", file=sys.stderr)
        raise SystemExit(2)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    agent = Agent(
        args.server, args.token, location=args.location, concurrency=max(1, args.concurrency)
    )

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, agent.stop)
        await agent.run()

    try:
        asyncio.run(main())
    except AgentError as exc:
        print(f"watchpost: error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
