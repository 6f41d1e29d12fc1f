"""Finished games and player records: the read side of the journal's database.

:class:`Records` answers the lobby's questions (hall of fame, one player's record, the
latest games) from the ``games`` and ``game_players`` tables that
:meth:`engine.journal.SqliteJournal.game_over` fills. In the server, share the journal's
connection (``Records(journal.connection)``, same thread); another process (a command-line
report) opens its own read-only connection with :func:`open_records` while the server runs.

Bots (player ids starting ``"bot:"``) play in games but never enter the hall of fame.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from engine.journal import DB_NAME, DEFAULT_DATA_DIR, JournalError, check_tables, schema_version
from engine.text import clean_name


@dataclass(frozen=True)
class PlayerRecord:
    """One person's games. ``name`` is the latest name they played under; ``names``
    every name they used, latest first."""

    player_id: str
    name: str
    names: tuple[str, ...]
    games_played: int
    games_won: int  # a shared victory counts as a win for each winner
    total_points: int  # sum of final scores
    last_played: datetime


@dataclass(frozen=True)
class GamePlayer:
    """One seat of a finished game."""

    seat: int
    player_id: str
    name: str
    score: int
    won: bool

    @property
    def is_bot(self) -> bool:
        return self.player_id.startswith("bot:")


@dataclass(frozen=True)
class GameSummary:
    """A finished game, as the lobby lists it."""

    code: str
    game_no: int  # the table's game number
    finished_at: datetime  # UTC
    players: tuple[GamePlayer, ...]  # by seat
    rounds: int  # rounds played
    game_id: int = 0  # its row in the journal: what :func:`engine.replay.load_replay` takes
    moves_kept: bool = True  # False once ``prune`` removed its moves: listed, not replayable

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players if p.won)


class Records:
    """Queries over finished games. ``connection`` is the journal's, or from
    :func:`open_records`."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def hall_of_fame(self, limit: int = 10) -> list[PlayerRecord]:
        """The best human players: most wins, then most points, then fewest games."""
        rows = self.connection.execute(
            f"{_PLAYER_TOTALS} WHERE NOT gp.is_bot GROUP BY gp.player_id"
            " ORDER BY won DESC, points DESC, played ASC, gp.player_id"
            " LIMIT ?", (max(0, limit),)).fetchall()
        return [self._player(*row) for row in rows]

    def player_record(self, player_id: str) -> PlayerRecord | None:
        """``player_id``'s record, or None if they never finished a game."""
        row = self.connection.execute(
            f"{_PLAYER_TOTALS} WHERE gp.player_id = ? GROUP BY gp.player_id",
            (player_id,)).fetchone()
        return None if row is None else self._player(*row)

    def recent_games(self, limit: int = 10) -> list[GameSummary]:
        """The latest finished games, newest first."""
        return self.finished_games(limit=limit)

    def finished_games(self, player_id: str | None = None, limit: int = 20,
                       offset: int = 0) -> list[GameSummary]:
        """Finished games newest first, ``limit`` of them after the first ``offset``; with
        ``player_id``, only the games that player sat in. Two queries whatever the page's
        size, each through an index (``games_finished``, ``game_players_player``): the
        cost does not grow with the games in the journal (see ``bench/replay.py``)."""
        page = (max(0, limit), max(0, offset))
        if player_id is None:
            games = self.connection.execute(
                f"SELECT {_GAME_COLUMNS} FROM games g ORDER BY g.finished_at DESC, g.id DESC"
                " LIMIT ? OFFSET ?", page).fetchall()
        else:
            games = self.connection.execute(
                f"SELECT {_GAME_COLUMNS} FROM game_players p JOIN games g ON g.id = p.game_id"
                " WHERE p.player_id = ? ORDER BY g.finished_at DESC, g.id DESC"
                " LIMIT ? OFFSET ?", (player_id, *page)).fetchall()
        return self._summaries(games)

    def game(self, code: str, game_no: int | None = None) -> GameSummary | None:
        """Game ``game_no`` of table ``code`` (codes come back once a table closes: the
        newest such game), or the table's last finished game; None if there is none."""
        row = self.connection.execute(
            "SELECT id FROM games WHERE code = ? AND (? IS NULL OR game_no = ?)"
            " ORDER BY finished_at DESC, id DESC LIMIT 1",
            (code.upper(), game_no, game_no)).fetchone()
        return None if row is None else self.game_by_id(row[0])

    def game_by_id(self, game_id: int) -> GameSummary | None:
        """The finished game stored as row ``game_id``, or None."""
        games = self.connection.execute(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.id = ?", (game_id,)).fetchall()
        return next(iter(self._summaries(games)), None)

    def _summaries(self, games: list[tuple[int, str, int, float, int, int]]
                   ) -> list[GameSummary]:
        """Rows of :data:`_GAME_COLUMNS`, with their players (one query for all)."""
        seats: dict[int, list[GamePlayer]] = {game[0]: [] for game in games}
        if seats:
            marks = ",".join("?" * len(seats))
            for game_id, seat, pid, name, score, won in self.connection.execute(
                    "SELECT game_id, seat, player_id, name, score, won FROM game_players"
                    f" WHERE game_id IN ({marks}) ORDER BY game_id, seat", tuple(seats)):
                seats[game_id].append(GamePlayer(seat, pid, clean_name(name), score, bool(won)))
        return [GameSummary(code, game_no, _when(finished_at), tuple(seats[game_id]), rounds,
                            game_id, bool(kept))
                for game_id, code, game_no, finished_at, rounds, kept in games]

    def close(self) -> None:
        """Close the connection (only for one from :func:`open_records`)."""
        self.connection.close()

    def _player(self, player_id: str, played: int, won: int, points: int,
                last_game: int) -> PlayerRecord:
        names = tuple(clean_name(row[0]) for row in self.connection.execute(
            "SELECT gp.name FROM game_players gp WHERE gp.player_id = ? GROUP BY gp.name"
            " ORDER BY MAX(gp.game_id) DESC", (player_id,)))
        last = self.connection.execute("SELECT finished_at FROM games WHERE id = ?",
                                       (last_game,)).fetchone()[0]
        return PlayerRecord(player_id, names[0], names, played, won, points, _when(last))


_PLAYER_TOTALS = (
    "SELECT gp.player_id, COUNT(*) AS played, SUM(gp.won) AS won, SUM(gp.score) AS points,"
    " MAX(gp.game_id) AS last FROM game_players gp"
)
"""Totals from the seats alone, ``last`` the player's newest game (games are stored as they
finish). Joining ``games`` for every seat read each game's row, which holds its whole
summary: three times the cost at 1,000 games (``bench/replay.py``)."""


_GAME_COLUMNS = ("g.id, g.code, g.game_no, g.finished_at, CASE WHEN json_valid(g.result)"
                 " THEN coalesce(json_array_length(g.result, '$.rounds'), 0) ELSE 0 END,"
                 " EXISTS (SELECT 1 FROM records r WHERE r.table_id = g.table_id)")
"""What :meth:`Records._summaries` takes, from ``games g``; the rounds are counted in
SQLite, for the rows of the page only."""


def open_records(data_dir: Path | str = DEFAULT_DATA_DIR) -> Records:
    """A read-only view of the journal in ``data_dir``, for another process than the
    server's (WAL lets it read while the server writes). Raises :class:`JournalError` if
    there is no journal there or its schema is not this version's."""
    path = Path(data_dir) / DB_NAME
    if not path.is_file():
        raise JournalError(f"{path} does not exist: start the server once to create it")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        version = db.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as error:
        raise JournalError(f"{path} is not a valid database ({error}): move it away or "
                           "restore a backup") from error
    if version != schema_version():
        db.close()
        raise JournalError(f"{path} has schema {version}, this version reads "
                           f"{schema_version()}: start the server once to upgrade it")
    try:
        check_tables(db, path)
    except JournalError:
        db.close()
        raise
    return Records(db)


def _when(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, tz=UTC)
