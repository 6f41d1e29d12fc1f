"""What a seat sees at the key moments of a round, at 80x24, 100x30 and 120x40 (SVG snapshots).

The hub is seeded and has no turn timer, so every picture is the same on every run.
Update with ``pytest tests/tui/test_game_snapshots.py --snapshot-update`` and look at them.
"""

from __future__ import annotations

import pytest

from engine.tables import TableOptions
from tests.tui.game_host import GameHost, Table, make_table

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((100, 30), id="100x30"),
         pytest.param((120, 40), id="120x40")]


def lead_picking() -> GameHost:
    """The lead has marked column 1 and is choosing in column 2."""
    table = make_table(4)
    lead = table.seat_session(table.lead)
    lead.pick(0, 1)
    return GameHost(lead)


def stopper_after_stop() -> GameHost:
    """A guesser shouted Stop! after the second item and must hide a guess now."""
    table = make_table(4)
    lead = table.seat_session(table.lead)
    lead.pick(0, 1)
    lead.pick(1, 3)
    stopper = table.seat_session(table.guessers()[1])
    stopper.shout()
    return GameHost(stopper)


def _hide_all(table: Table) -> None:
    lead = table.seat_session(table.lead)
    lead.pick(0, 1)
    table.seat_session(table.guessers()[1]).shout()
    table.seat_session(table.guessers()[1]).guess(table.state().secret)
    for column in (1, 2, 3):
        lead.pick(column, (column * 3) % 4)
    for k, seat in enumerate(table.guessers()):
        if table.state().guesses[seat] is None:
            table.seat_session(seat).guess(k % 4 + 1)


def reveal_phase() -> GameHost:
    """The first guesser revealed with a plan; the second one's turn, plan input ready."""
    table = make_table(4)
    _hide_all(table)
    first, second, _ = table.guessers()
    table.seat_session(first).reveal("Ride the [b]trampoline[/b] over the wall, then hide "
                                     "in the castle until the coast is clear")
    return GameHost(table.seat_session(second))


def spectator_watching() -> GameHost:
    """Someone watching: the public board, the log and the chat, no hand and no moves."""
    table = make_table(4, spectators=1)
    lead = table.seat_session(table.lead)
    lead.pick(0, 1)
    lead.pick(1, 3)
    table.seat_session(table.guessers()[0]).chat("go team")
    return GameHost(table.sessions[-1])


def round_over(players: int = 4) -> GameHost:
    """Every card revealed, the task too: the round's points, each explained."""
    table = make_table(players, TableOptions(turn_seconds=0, best_plan=True))
    _hide_all(table)
    for seat in table.guessers():
        table.seat_session(seat).reveal("a cunning plan")
    table.seat_session(table.lead).lead_reveal("it was obvious")
    table.seat_session(table.lead).best_plan(table.guessers()[0])
    return GameHost(table.seat_session(table.guessers()[2]))


@pytest.mark.parametrize("size", SIZES)
def test_the_lead_picks_from_the_second_column(snap_compare, size) -> None:
    assert snap_compare(lead_picking(), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_a_guesser_who_shouted_stop_is_asked_for_a_guess(snap_compare, size) -> None:
    assert snap_compare(stopper_after_stop(), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_guessers_reveal_their_cards_and_plans_in_turn(snap_compare, size) -> None:
    assert snap_compare(reveal_phase(), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_the_round_over_screen_explains_every_point(snap_compare, size) -> None:
    assert snap_compare(round_over(), terminal_size=size)


def test_the_round_over_screen_of_five_keeps_its_header_at_80x24(snap_compare) -> None:
    """Five players' points with their reasons do not fit under the header at 80x24: the
    points go on one row, the reasons are in the log (the header is never cut)."""
    assert snap_compare(round_over(players=5), terminal_size=(80, 24))


@pytest.mark.parametrize("size", SIZES[:2])
def test_five_players_each_have_a_row_beside_the_tasks(snap_compare, size) -> None:
    """Four tasks, five players: the top grows a row (from the log) so Eve is not cut."""
    table = make_table(5)
    table.seat_session(table.lead).pick(0, 1)
    assert snap_compare(GameHost(table.seat_session(table.guessers()[0])), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_a_spectator_watches_the_board_without_a_hand(snap_compare, size) -> None:
    assert snap_compare(spectator_watching(), terminal_size=size)
