"""What the lobby shows of past games: the player's own record, the hall of fame, and the
last games played at this server.

The lobby asks the hub for a :class:`~engine.hub.PlayerHistory` when it is shown (a few
SQLite queries) and hands it down with :meth:`HistoryPanel.show`, which repaints only if
the data changed. Names are player text: every piece is built as plain
:class:`~textual.content.Content`, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from rich.cells import cell_len, set_cell_size
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from engine.records import GamePlayer, GameSummary, PlayerRecord
from engine.tables import PlayerHistory
from engine.text import NAME_MAX, plural
from lean_textual.wake import wake_later

WINNER_MARK = "★"
NAME_WIDTH = NAME_MAX  # hall of fame name column, in cells


def utc_now() -> datetime:
    """The clock the panel dates games by (tests replace it)."""
    return datetime.now(tz=UTC)


def ago(when: datetime, now: datetime) -> str:
    """How long ago ``when`` was, in words a player reads at a glance: relative, so it means
    the same whatever the player's time zone."""
    seconds = (now - when).total_seconds()
    if seconds < 60:
        return "just now"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes} min ago"
    hours = minutes // 60
    if hours < 24:
        return f"{hours} h ago"
    days = hours // 24
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    return when.strftime("%d %b %Y")


def record_text(mine: PlayerRecord | None) -> Content:
    """``Your record``: games, wins, points and the names used; or "No games yet"."""
    if mine is None:
        return Content.assemble(("No games yet", "bold"),
                                ": finish one and it counts here.")
    names = ", ".join(mine.names)
    return Content.assemble(
        (plural(mine.games_played, "game"), "bold"), " played, ",
        (f"{mine.games_won} won", "bold $success"), ", ",
        (plural(mine.total_points, "point"), "bold"), "\n",
        ("as ", "$text-muted"), names,
    )


GUEST_MARK = "*"


def fame_text(players: Iterable[PlayerRecord]) -> Content:
    """The hall of fame as aligned rows: rank, name, wins, games, points. A guest (no SSH
    key) is a new person on every visit: their name is marked, so two guests called "cy"
    read as two visits, not as one person counted twice."""
    rows = [Content.styled(f"    {'Agent':<{NAME_WIDTH}} Won Games  Pts", "$text-muted")]
    guests = False
    for rank, player in enumerate(players, start=1):
        guest = player.player_id.startswith("guest:")
        guests = guests or guest
        mark = GUEST_MARK if guest else ""
        name = set_cell_size(player.name, NAME_WIDTH - len(mark)).rstrip()
        rows.append(Content.assemble(
            f"{rank:>2}. ", name, (mark, "$text-muted"), " " * (NAME_WIDTH - cell_len(name)
                                                             - len(mark)),
            (f" {player.games_won:>3}", "bold"),
            f" {player.games_played:>5} {player.total_points:>4}",
        ))
    if len(rows) == 1:
        return Content.styled("Nobody has finished a game here yet.", "$text-muted")
    if guests:
        rows.append(Content.styled(f"{GUEST_MARK} a guest: no key, no lasting record",
                                   "$text-muted"))
    return Content("\n").join(rows)


def seat_text(player: GamePlayer) -> Content:
    """One seat of a finished game: ``★ Ann 5`` for a winner, ``Bob 3`` otherwise."""
    style = "dim" if player.is_bot else ""
    if player.won:
        return Content.assemble((f"{WINNER_MARK} ", "$success"),
                                (player.name, "bold $success"), f" {player.score}")
    return Content.assemble((player.name, style), f" {player.score}")


def game_text(game: GameSummary, now: datetime) -> Content:
    """Two lines for one finished game: when and where, then the players with their scores,
    best first."""
    heading = [(ago(game.finished_at, now), "$text-muted"), "  table ", (game.code, "bold")]
    if game.game_no > 1:
        heading.append(f" (game {game.game_no})")
    ranked = sorted(game.players, key=lambda p: -p.score)
    seats = Content("  ").join(seat_text(p) for p in ranked)
    shared = len(game.winners) > 1
    return Content.assemble(*heading, "\n", seats,
                            ("  (shared)" if shared else "", "italic $success"))


def recent_text(games: Iterable[GameSummary], now: datetime) -> Content:
    lines = [game_text(game, now) for game in games]
    if not lines:
        return Content.styled("No finished games yet.", "$text-muted")
    return Content("\n\n").join(lines)


class HistoryPanel(VerticalScroll):
    """The player's record, the hall of fame and the latest games. Two parts (people, then
    games) that the stylesheet stacks or sets side by side; scrolls when it does not fit.
    :meth:`show` hands it new data.

    Its parts are built when it is first shown. Under 120 columns it waits behind ``h``,
    and most players never open it: built with the lobby, its nine widgets were a seventh
    of the server's CPU for a new connection."""

    def __init__(self, *, clock: Callable[[], datetime] | None = None,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.clock = clock or utc_now
        self._shown: PlayerHistory | None = None

    def _parts(self, history: PlayerHistory) -> list[Widget]:
        return [
            Vertical(
                Static("Your record", classes="history-title", id="history-mine-title"),
                Static(record_text(history.mine), id="history-mine"),
                Static("Hall of fame", classes="history-title"),
                Static(fame_text(history.hall_of_fame), id="history-fame"),
                id="history-people", classes="history-part"),
            Vertical(
                Static("Last games here", classes="history-title", id="history-recent-title"),
                Static(recent_text(history.recent, self.clock()), id="history-recent"),
                id="history-games", classes="history-part"),
        ]

    @property
    def shown(self) -> PlayerHistory | None:
        """The history on screen (None before the first :meth:`show`)."""
        return self._shown

    AGO_REFRESH_S = 60.0

    def on_mount(self) -> None:
        # "5 min ago" grows old while the lobby stays open: redraw the times once a minute
        # (no database query; a lobby costs one small repaint a minute)
        self._ago_timer = wake_later(self, self.AGO_REFRESH_S, self._refresh_ago)

    def on_unmount(self) -> None:
        self._ago_timer.cancel()

    def _refresh_ago(self) -> None:
        self._ago_timer = wake_later(self, self.AGO_REFRESH_S, self._refresh_ago)
        if self._shown is not None and self.display and self.is_on_screen:
            self.query_one("#history-recent", Static).update(
                recent_text(self._shown.recent, self.clock()))

    def show(self, history: PlayerHistory) -> None:
        """Show ``history``; nothing is repainted if it is what is already shown."""
        if history == self._shown:
            return
        first = self._shown is None
        self._shown = history
        if first:
            self.mount_all(self._parts(history))
            return
        self.query_one("#history-mine", Static).update(record_text(history.mine))
        self.query_one("#history-fame", Static).update(fame_text(history.hall_of_fame))
        self.query_one("#history-recent", Static).update(
            recent_text(history.recent, self.clock()))
