"""``mission-impractical``: run the server, or the engine's simulator.

    mission-impractical serve [--host H] [--port 2222] [--data-dir ./data] [--log-level INFO]
                              [--host-key PATH] [--authorized-keys FILE] [--password PW]
    mission-impractical simulate ...      (handed to engine.simulate)

Every ``serve`` option can also come from the environment: MI_HOST, MI_PORT, MI_DATA_DIR,
MI_LOG_LEVEL, MI_HOST_KEY, MI_AUTHORIZED_KEYS, MI_PASSWORD (better than ``--password``,
which other users of the machine can see in the process list).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from server.auth import AccessPolicy
from server.context import AppFactory, SessionContext
from server.host_keys import DEFAULT_HOST_KEY
from server.limits import build_limits, parse_limit
from server.log_limits import limit_repeats
from server.ssh_server import RESTARTING, GameServer, ServerConfig, start_server

log = logging.getLogger("server")

DEFAULT_APP_FACTORY = "server.cli:mission_app_factory"


def mission_app_factory(hub: Any, invite: str = "ssh -t host") -> AppFactory:
    """The real game: one :class:`tui.app.MissionApp` per session, all on one hub.
    ``invite`` is the command friends type, shown beside a table's code."""
    from tui.app import MissionApp

    def build(context: SessionContext) -> Any:
        return MissionApp(hub, context.player, join_code=context.join_code, invite=invite)

    return build


def invite_command(port: int, public_name: str) -> str:
    """``ssh -t -p 2222 game.example.com``: what a friend types (the code follows)."""
    return f"ssh -t {public_name}" if port == 22 else f"ssh -t -p {port} {public_name}"


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value else default


def build_parser() -> argparse.ArgumentParser:
    """The ``serve`` command line (``simulate`` passes its arguments straight on)."""
    parser = argparse.ArgumentParser(
        prog="mission-impractical", description="Mission Impractical, over SSH."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the SSH game server")
    serve.add_argument("--host", default=_env("MI_HOST", ""),
                       help="address to listen on (default: every address) [MI_HOST]")
    serve.add_argument("--port", type=int, default=int(_env("MI_PORT", "2222") or 2222),
                       help="port to listen on (default 2222; 0 picks one) [MI_PORT]")
    serve.add_argument("--data-dir", type=Path, default=Path(_env("MI_DATA_DIR", "./data") or "."),
                       help="where the game journal lives (default ./data) [MI_DATA_DIR]")
    serve.add_argument("--log-level", default=_env("MI_LOG_LEVEL", "INFO"),
                       choices=["DEBUG", "INFO", "WARNING", "ERROR"], type=str.upper,
                       help="how much to log (default INFO) [MI_LOG_LEVEL]")
    serve.add_argument("--host-key", type=Path,
                       default=Path(_env("MI_HOST_KEY", str(DEFAULT_HOST_KEY)) or "."),
                       help=f"Ed25519 host key, made if missing (default {DEFAULT_HOST_KEY})"
                            " [MI_HOST_KEY]")
    serve.add_argument("--authorized-keys", type=Path, default=_env("MI_AUTHORIZED_KEYS"),
                       help="let in only the public keys in this authorized_keys file"
                            " [MI_AUTHORIZED_KEYS]")
    serve.add_argument("--password", default=_env("MI_PASSWORD"),
                       help="a shared password everyone without a listed key must type"
                            " [MI_PASSWORD]")
    serve.add_argument("--public-name", default=_env("MI_PUBLIC_NAME", "host"),
                       help="the name friends type after ssh, shown beside table codes"
                            " [MI_PUBLIC_NAME]")
    # -- limits (see docs/security.md) ---------------------------------------------------
    serve.add_argument("--limit", action="append", type=_limit, metavar="NAME=VALUE", default=[],
                       help="change one limit, e.g. --limit max_sessions_per_source=20"
                            " (repeatable; docs/security.md lists them) [MI_LIMITS=a=1,b=2]")
    serve.add_argument("--app-factory", default=_env("MI_APP_FACTORY", DEFAULT_APP_FACTORY),
                       help="for development: module:function(hub) returning the app factory")
    return parser


def _limit(text: str) -> tuple[str, int | float]:
    try:
        return parse_limit(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "simulate":
        return _simulate(args[1:])
    parser = build_parser()
    options = parser.parse_args(args)
    try:  # MI_LIMITS first, so that a --limit on the command line wins
        env_limits = [parse_limit(item) for item in (_env("MI_LIMITS") or "").split(",")
                      if item.strip()]
    except ValueError as error:
        parser.error(f"MI_LIMITS: {error}")
    options.limit = env_limits + options.limit
    return serve(options)


def _simulate(argv: list[str]) -> int:
    from engine.simulate import main as simulate_main

    return int(simulate_main(argv) or 0)


def serve(options: argparse.Namespace) -> int:
    """Run the server until SIGTERM or SIGINT, then shut down gracefully; returns 0."""
    logging.basicConfig(
        level=options.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if options.log_level != "DEBUG":
        logging.getLogger("asyncssh").setLevel(logging.WARNING)
    limit_repeats()  # a flood repeats lines: a few per minute each, then a count
    try:
        return asyncio.run(_serve(options))
    except KeyboardInterrupt:  # before the signal handlers were in place
        return 0


def _load_object(spec: str) -> Callable[..., Any]:
    module_name, _, name = spec.partition(":")
    return getattr(importlib.import_module(module_name), name)  # type: ignore[no-any-return]


def _banner(server: GameServer) -> str:
    where = ", ".join(
        f"[{host}]:{port}" if ":" in host else f"{host}:{port}" for host, port in server.addresses
    )
    return (
        f"Mission Impractical is listening on {where}\n"
        f"Host key fingerprint: {server.host_key_fingerprint}\n"
        f"Players join with: ssh -p {server.port} <this host>"
    )


async def _serve(options: argparse.Namespace) -> int:
    from engine.hub import Hub
    from engine.journal import JournalError

    try:
        hub = Hub.open(options.data_dir)
    except JournalError as error:  # a damaged database is reported, never replaced
        print(f"mission-impractical: {error}", file=sys.stderr)
        return 2
    try:
        make = _load_object(options.app_factory)
        if make is mission_app_factory:
            factory = make(hub, invite_command(options.port, options.public_name))
        else:
            factory = make(hub)
        session_limits, connection_limits = build_limits(dict(options.limit))
        config = ServerConfig(
            limits=session_limits,
            connection_limits=connection_limits,
            host=options.host,
            port=options.port,
            host_key_path=options.host_key,
            access=AccessPolicy.from_options(options.authorized_keys, options.password),
        )
        server = await start_server(factory, config)
        hub.resume_timers()  # restored tables: absent players get their full grace again
        print(_banner(server), flush=True)
        await _until_signalled()
        log.info("shutting down: telling %d players", len(server.sessions))
        await server.close(RESTARTING)
    finally:
        hub.close()
        log.info("journal closed")
    return 0


async def _until_signalled() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()


if __name__ == "__main__":
    sys.exit(main())
