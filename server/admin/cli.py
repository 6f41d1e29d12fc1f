"""``mission-impractical``: run the server, the host's tools, or the engine's simulator.

    mission-impractical serve [--host H] [--port 2222] [--data-dir DIR] [--public-name NAME]
                              [--host-key PATH] [--authorized-keys FILE] [--password PW]
                              [--max-sessions 300] [--log-level INFO] [--log-format text]
                              [--deck DIR] [--abandoned-minutes 5] [--limit NAME=VALUE ...]
                              [--app-factory M:F]
    mission-impractical status | backup FILE | restore FILE | prune --older-than 90d
    mission-impractical kick WHO [--yes] | ban WHO [--reason TEXT] [--yes] | unban WHO
    mission-impractical export CODE [N] [--format json|md]
    mission-impractical simulate ...      (handed to engine.simulate)
    mission-impractical deck fit DIR      (handed to engine.deck_fit; needs the fit extra)
    mission-impractical --version

Every option can also come from the environment: MI_HOST, MI_PORT, MI_DATA_DIR,
MI_PUBLIC_NAME, MI_HOST_KEY, MI_AUTHORIZED_KEYS, MI_PASSWORD (better than ``--password``,
which other users of the machine can see in the process list), MI_MAX_SESSIONS,
MI_LOG_LEVEL, MI_LOG_FORMAT, MI_DECK, MI_ABANDONED_MINUTES, MI_LIMITS (``a=1,b=2``, read
before any ``--limit``, which wins), MI_APP_FACTORY (for development). The data directory
defaults to systemd's ``$STATE_DIRECTORY`` when set, else
``$XDG_DATA_HOME/mission-impractical`` (``~/.local/share/mission-impractical``); the host
key lives in it unless ``--host-key`` says otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import signal
import socket
import stat
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server import gc_tuning, recycle
from server.admin import db as host_db
from server.admin import export
from server.admin import tools as host_tools
from server.admin.control import HostControl
from server.admin.log_limits import limit_repeats
from server.admin.oplog import LOG_FORMATS, configure_logging
from server.auth import AccessPolicy
from server.context import AppFactory, SessionContext
from server.host_keys import DEFAULT_HOST_KEY, copy_host_key
from server.limits import build_limits, parse_limit
from server.ssh_server import RESTARTING, GameServer, ServerConfig, start_server

if TYPE_CHECKING:
    from engine.cards import Deck

log = logging.getLogger("server")

DEFAULT_APP_FACTORY = "server.admin.cli:mission_app_factory"


def mission_app_factory(hub: Any, invite: str | Callable[[], str] = "ssh -t host"
                        ) -> AppFactory:
    """The real game: one :class:`tui.app.MissionApp` per session, all on one hub.
    ``invite`` is the command friends type, shown beside a table's code (or what says it
    once the server listens: with ``--port 0`` the port is known only then)."""
    from tui.app import MissionApp

    def build(context: SessionContext) -> Any:
        return MissionApp(hub, context.player, join_code=context.join_code,
                          invite=invite if isinstance(invite, str) else invite(),
                          replay=context.replay)

    return build


def invite_command(port: int, public_name: str) -> str:
    """``ssh -t -p 2222 game.example.com``: what a friend types (the code follows)."""
    return f"ssh -t {public_name}" if port == 22 else f"ssh -t -p {port} {public_name}"


HOST_KEY_NAME = "ssh_host_ed25519_key"


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value else default


def version() -> str:
    """The installed version (one number, in pyproject.toml)."""
    try:
        return metadata.version("mission-impractical")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def default_data_dir() -> Path:
    """systemd's StateDirectory= when set, else the XDG data directory."""
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "mission-impractical"


def default_public_name() -> str:
    """The machine's own name: what friends type after ``ssh`` unless told otherwise."""
    return socket.gethostname() or "localhost"


def host_key_path(options: argparse.Namespace) -> Path:
    """``--host-key``, else the key in the data directory. A key left in ``./host_keys/``
    by an older version is copied there once (players' clients still recognise the
    server), so the key no longer depends on the directory the server starts in."""
    if options.host_key is not None:
        return Path(options.host_key)
    in_data = Path(options.data_dir) / HOST_KEY_NAME
    if not in_data.exists() and DEFAULT_HOST_KEY.exists():
        keep_private(in_data.parent)
        copy_host_key(DEFAULT_HOST_KEY, in_data)
        log.info("copied the host key of an older version from %s to %s",
                 DEFAULT_HOST_KEY.resolve(), in_data.resolve())
    return in_data


def keep_private(data_dir: Path) -> None:
    """The data directory, made if missing, is its owner's alone (700), even if it was
    made wider before (the journal holds names, chat and key fingerprints)."""
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    mode = stat.S_IMODE(data_dir.stat().st_mode)
    if mode & 0o077:
        log.warning("data directory %s was open to others (mode %o); set to 700",
                    data_dir, mode)
        data_dir.chmod(0o700)


def _megabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of megabytes: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command line (``simulate`` passes its arguments straight on)."""
    parser = argparse.ArgumentParser(
        prog="mission-impractical", description="Mission Impractical, over SSH.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    data = argparse.ArgumentParser(add_help=False)
    data_dir = Path(_env("MI_DATA_DIR") or default_data_dir())
    data.add_argument("--data-dir", type=Path, default=data_dir,
                      help=f"where the game journal and host key live (here: {data_dir})"
                           " [MI_DATA_DIR]")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser("serve", parents=[data], help="run the SSH game server")
    serve.add_argument("--host", default=_env("MI_HOST", ""),
                       help="address to listen on (default: every address) [MI_HOST]")
    serve.add_argument("--port", type=int, default=int(_env("MI_PORT", "2222") or 2222),
                       help="port to listen on (default 2222; 0 picks one) [MI_PORT]")
    serve.add_argument("--log-level", default=_env("MI_LOG_LEVEL", "INFO"),
                       choices=["DEBUG", "INFO", "WARNING", "ERROR"], type=str.upper,
                       help="how much to log (default INFO) [MI_LOG_LEVEL]")
    serve.add_argument("--log-format", default=_env("MI_LOG_FORMAT", "text"),
                       choices=LOG_FORMATS, type=str.lower,
                       help="text lines, or one JSON object a line (default text)"
                            " [MI_LOG_FORMAT]")
    serve.add_argument("--host-key", type=Path, default=_env("MI_HOST_KEY"),
                       help=f"Ed25519 host key, made if missing (default DATA_DIR/"
                            f"{HOST_KEY_NAME}) [MI_HOST_KEY]")
    serve.add_argument("--authorized-keys", type=Path, default=_env("MI_AUTHORIZED_KEYS"),
                       help="let in only the public keys in this authorized_keys file"
                            " [MI_AUTHORIZED_KEYS]")
    serve.add_argument("--password", default=_env("MI_PASSWORD"),
                       help="a shared password everyone without a listed key must type"
                            " [MI_PASSWORD]")
    serve.add_argument("--public-name", default=_env("MI_PUBLIC_NAME") or default_public_name(),
                       help="the name friends type after ssh, shown beside table codes"
                            " (default: this machine's name) [MI_PUBLIC_NAME]")
    serve.add_argument("--max-sessions", type=_positive,
                       default=int(_env("MI_MAX_SESSIONS", "300") or 300),
                       help="players connected at once; more are told the server is full"
                            " (default 300) [MI_MAX_SESSIONS]")
    serve.add_argument("--deck", type=Path, default=_env("MI_DECK"),
                       help="play with your own cards: a folder holding tasks.txt and "
                            "items.txt in the game's format, checked at start [MI_DECK]")
    serve.add_argument("--abandoned-minutes", type=_positive,
                       default=int(_env("MI_ABANDONED_MINUTES", "5") or 5),
                       help="a game no person has played at for this long ends, bots and "
                            "spectators or not (default 5) [MI_ABANDONED_MINUTES]")
    serve.add_argument("--recycle-mb", type=_megabytes,
                       default=_env("MI_RECYCLE_MB", "") or f"{recycle.DEFAULT_MB:g}",
                       help="once everyone has left, start again in place (same process id,"
                            " same port, nothing lost) when the server holds this many MB"
                            " more than once started, to give back what a crowd took;"
                            f" 0: never (default {recycle.DEFAULT_MB:g}) [MI_RECYCLE_MB]")
    # -- limits (see docs/security.md) ---------------------------------------------------
    serve.add_argument("--limit", action="append", type=_limit, metavar="NAME=VALUE", default=[],
                       help="change one limit, e.g. --limit max_sessions_per_source=20"
                            " (repeatable; docs/security.md lists them) [MI_LIMITS=a=1,b=2]")
    serve.add_argument("--app-factory", default=_env("MI_APP_FACTORY", DEFAULT_APP_FACTORY),
                       help="for development: module:function(hub) returning the app factory")
    commands.add_parser("status", parents=[data],
                        help="who is connected, open tables, bans (while the server runs, too)")
    backup = commands.add_parser("backup", parents=[data],
                                 help="a consistent copy of the database, safe while running")
    backup.add_argument("file", type=Path, help="the copy to write (must not exist)")
    restore = commands.add_parser("restore", parents=[data],
                                  help="put a backup back in place (stop the server first)")
    restore.add_argument("file", type=Path, help="a file written by backup")
    prune = commands.add_parser("prune", parents=[data],
                                help="forget old closed tables' move-by-move records")
    prune.add_argument("--older-than", required=True, metavar="AGE",
                       help="tables closed longer ago than this: 90d, 12h, 2w")
    who = ("a name as status shows it, a key fingerprint (SHA256:...), a guest (guest:...), "
           "or an IP address or network (everyone connected from it)")
    shared = ("an address several people are connected from (a home's router, a proxy, "
              "127.0.0.1): go ahead and take them all")
    kick = commands.add_parser("kick", parents=[data], help="disconnect someone, now")
    kick.add_argument("who", help=who)
    kick.add_argument("--yes", action="store_true", help=shared)
    ban = commands.add_parser("ban", parents=[data],
                              help="keep someone out (takes effect on the running server)")
    ban.add_argument("who", help=who)
    ban.add_argument("--reason", default="", help="a note for status")
    ban.add_argument("--yes", action="store_true", help=shared)
    unban = commands.add_parser("unban", parents=[data], help="lift a ban")
    unban.add_argument("who", help="a ban as status lists it: SHA256:..., guest:... or an "
                                   "address or network")
    out = commands.add_parser("export", parents=[data], help="write a finished game out: "
                              "its auditable log (json) or a transcript to share (md)")
    out.add_argument("code", help="the table's code")
    out.add_argument("game_no", nargs="?", type=_positive, metavar="N",
                     help="the table's game number (default: its last finished game)")
    out.add_argument("--format", choices=export.FORMATS, default="md", dest="fmt")
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
    if args[:2] == ["deck", "fit"]:  # the fit extra's developer step (engine.deck_fit)
        from engine.deck_fit import main as deck_fit_main

        return deck_fit_main(args[2:])
    parser = build_parser()
    options = parser.parse_args(args)
    if options.command != "serve":
        return host_tool(options)
    try:  # MI_LIMITS first, so that a --limit on the command line wins
        env_limits = [parse_limit(item) for item in (_env("MI_LIMITS") or "").split(",")
                      if item.strip()]
    except ValueError as error:
        parser.error(f"MI_LIMITS: {error}")
    options.limit = env_limits + options.limit
    return serve(options)


def host_tool(options: argparse.Namespace) -> int:
    """Run one of the host's tools; a refusal is one line on stderr and status 2."""
    data_dir: Path = options.data_dir
    out = sys.stdout
    tools: dict[str, Callable[[], int]] = {
        "status": lambda: host_tools.status(data_dir, out),
        "backup": lambda: host_tools.backup(data_dir, options.file, out),
        "restore": lambda: host_tools.restore(data_dir, options.file, out),
        "prune": lambda: host_tools.prune(data_dir, options.older_than, out),
        "kick": lambda: host_tools.kick(data_dir, options.who, out, yes=options.yes),
        "ban": lambda: host_tools.ban(data_dir, options.who, options.reason, out,
                                      yes=options.yes),
        "unban": lambda: host_tools.unban(data_dir, options.who, out),
        "export": lambda: export.export(data_dir, options.code, options.game_no,
                                        options.fmt, out),
    }
    try:
        return tools[options.command]()
    except host_tools.HostToolError as error:
        print(f"mission-impractical {options.command}: {error}", file=sys.stderr)
        return 2


def _simulate(argv: list[str]) -> int:
    from engine.simulate import main as simulate_main

    return int(simulate_main(argv) or 0)


def serve(options: argparse.Namespace) -> int:
    """Run the server until SIGTERM or SIGINT, then shut down gracefully; returns 0. Once
    empty and holding too much memory it starts again in place (:mod:`server.recycle`)."""
    configure_logging(options.log_level, options.log_format)
    limit_repeats()  # a flood repeats lines: a few per minute each, then a count
    handover: list[socket.socket] = []
    try:
        code = asyncio.run(_serve(options, handover))
    except KeyboardInterrupt:  # before the signal handlers were in place
        return 0
    if handover:
        try:
            recycle.exec_again(handover)
        except OSError as error:  # the journal is closed: a service manager starts it
            print(f"mission-impractical: could not start again in place: {error}",
                  file=sys.stderr)
            return 1
    return code


def _load_object(spec: str) -> Callable[..., Any]:
    module_name, _, name = spec.partition(":")
    return getattr(importlib.import_module(module_name), name)  # type: ignore[no-any-return]


def _banner(server: GameServer, public_name: str, deck: str) -> str:
    where = ", ".join(
        f"[{host}]:{port}" if ":" in host else f"{host}:{port}" for host, port in server.addresses
    )
    join = f"ssh {public_name}" if server.port == 22 else f"ssh -p {server.port} {public_name}"
    return (
        f"Mission Impractical {version()} is listening on {where}\n"
        f"Host key fingerprint: {server.host_key_fingerprint}\n"
        f"Players join with: {join}\n"
        f"Deck: {deck}"
    )


def _deck_line(deck: Deck, folder: Path | None) -> str:
    """Which cards are in play, for the start-up lines."""
    where = "the game's own cards" if folder is None else f"your own cards from {folder}"
    return f"{where} ({len(deck.tasks)} tasks, {len(deck.items)} items)"


def _announce_new_key(path: Path, fingerprint: str, first_start: bool) -> None:
    """On a first start a new key is expected: say so plainly. Later, a new host key means
    every player's ssh will warn once: say so loudly."""
    if first_start:
        log.info("made a new host key at %s (first start); its fingerprint is %s: share it "
                 "with your players so they can check it", path.resolve(), fingerprint)
        return
    log.warning("NEW HOST KEY generated at %s: %s. Players who connected before will see "
                "a warning that the host key changed; tell them this fingerprint. If you "
                "did not expect a new key, restore the old key file and restart.",
                path.resolve(), fingerprint)


async def _serve(options: argparse.Namespace, handover: list[socket.socket]) -> int:
    """Serve until a signal, or until the server, empty, should start again in place:
    then ``handover`` holds its listening sockets, still listening."""
    from engine.cards import DeckError, load_deck, load_deck_dir
    from engine.hub import Hub
    from engine.journal import DB_NAME, JournalError

    try:  # a host's own deck is checked before anything starts
        deck = load_deck() if options.deck is None else load_deck_dir(options.deck)
    except DeckError as error:
        print(f"mission-impractical: bad deck: {error}", file=sys.stderr)
        return 2
    deck.read_all()
    first_start = not (Path(options.data_dir) / DB_NAME).exists()
    if options.deck is not None:
        print(f"mission-impractical: {deck.fit_note()}", file=sys.stderr)
    try:
        keep_private(Path(options.data_dir))
        hub = Hub.open(options.data_dir, deck=deck,
                       abandoned_seconds=options.abandoned_minutes * 60)
    except OSError as error:
        print(f"mission-impractical: data directory {options.data_dir}: {error}",
              file=sys.stderr)
        return 2
    except JournalError as error:  # a damaged database is reported, never replaced
        print(f"mission-impractical: {error}", file=sys.stderr)
        return 2
    gc_tuning.tune()  # a full collection stops every player: make them rare (see module)
    try:
        make = _load_object(options.app_factory)

        def invite() -> str:
            return invite_command(server.port, options.public_name)

        if make is mission_app_factory or options.app_factory == DEFAULT_APP_FACTORY:
            # (run as ``python -m server.admin.cli``, this module's function is another object)
            factory = make(hub, invite)
        else:
            factory = make(hub)
        key_path = host_key_path(options)
        new_key = not key_path.exists()
        session_limits, connection_limits = build_limits(dict(options.limit))
        config = ServerConfig(
            limits=session_limits,
            connection_limits=connection_limits,
            host=options.host,
            port=options.port,
            host_key_path=key_path,
            access=AccessPolicy.from_options(options.authorized_keys, options.password),
            max_sessions=options.max_sessions,
            invite=invite,
        )
        control = HostControl(seated=lambda player_id: any(
            seat.player_id == player_id for table in hub.tables.values() for seat in table.seats))
        server = await start_server(factory, config, control, recycle.inherited_sockets())
        if new_key:
            _announce_new_key(key_path, server.host_key_fingerprint, first_start)
        journal_path = getattr(hub.journal, "path", None)
        records = None
        if journal_path is not None:  # status, kick and ban work through it
            records = host_db.server_connection(journal_path)
            control.attach(records, lambda: server.sessions)
        hub.write_behind()  # the journal commits on its own thread: nobody waits for the disk
        hub.resume_timers()  # restored tables: absent players get their full grace again
        stop = _stop_on_signals()  # before the banner: whoever read it may signal at once
        print(_banner(server, options.public_name, _deck_line(deck, options.deck)),
              flush=True)
        recycler = recycle.Recycler(options.recycle_mb, gc_tuning.rss_mb())
        handover.extend(await recycler.serve(server, stop, lambda: any(
            table.status == "playing" for table in hub.tables.values())))
        log.info("%s: telling %d players", "starting again" if handover else "shutting down",
                 len(server.sessions))
        await server.close(RESTARTING)
        control.close()
        if records is not None:
            records.close()
    finally:
        hub.close()
        log.info("journal closed")
    return 0


def _stop_on_signals() -> asyncio.Event:
    """An event set by SIGTERM or SIGINT."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    return stop


if __name__ == "__main__":
    sys.exit(main())
