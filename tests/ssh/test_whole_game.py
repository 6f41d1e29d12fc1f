"""A whole game of Mission Impractical, played by three real SSH clients with their keys."""

from __future__ import annotations

import asyncssh
import pytest

from engine.cards import load_deck
from engine.hub import Hub
from engine.rules import Phase, State
from engine.tables import Table
from engine.text import plural
from server.admin.cli import mission_app_factory
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.waiting import until

pytestmark = pytest.mark.xdist_group("e2e")


async def test_three_friends_play_a_whole_game_over_ssh(game_server: StartServer) -> None:
    hub = Hub(deck=load_deck(), seed="e2e", settle_ms=40, bot_delay=0.0)
    server = await game_server(mission_app_factory(hub))
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(3)]
    alice = await TermClient.connect(server.port, username="alice", key=keys[0], size=(120, 40))
    await alice.wait_for("the lobby")
    alice.send("c")
    await until(lambda: len(hub.tables) == 1, "alice's table")
    table: Table = next(iter(hub.tables.values()))
    # friends land at the table straight from ssh -t host CODE
    bob = await TermClient.connect(server.port, username="bob", key=keys[1], size=(120, 40),
                                   command=table.code)
    carol = await TermClient.connect(server.port, username="carol", key=keys[2],
                                     size=(100, 30), command=table.code.lower())
    await until(lambda: len(table.seats) == 3, "three seats")
    await alice.wait_for("carol")
    alice.send("g")
    await until(lambda: table.status == "playing", "the game to start")
    terms = {0: alice, 1: bob, 2: carol}
    await bob.wait_for("Round 1 of 6")

    def state() -> State:
        assert table.state is not None
        return table.state

    expected = [1, 1, 1]
    for round_no in range(1, 7):
        s = state()
        assert s.round == round_no
        lead = terms[s.lead]
        await lead.wait_for("Your secret task")
        shouter = s.guessers[round_no % 2]
        for column in range(4):
            if column == 2:  # Stop! before the 3rd item: the lead must wait for the guess
                terms[shouter].send("s")
                await until(lambda s=shouter: state().stop == (s,), "the stop token")
                await lead.wait_for("Stop")
                terms[shouter].send(str(state().secret if round_no % 3 else 1))
                await until(lambda s=shouter: state().guesses[s] is not None, "the guess")
            lead.send(str(column + 1))  # row = column + 1
            await until(lambda c=column: len(state().picks) == c + 1, f"pick {column + 1}")
        for seat in state().guessers:
            if seat != shouter:
                terms[seat].send(str(state().secret if seat % 2 else (state().secret % 4) + 1))
        await until(lambda: state().phase is Phase.REVEALING, "every guess hidden")
        for seat in state().guessers:
            await until(lambda seat=seat: state().next_revealer == seat, "a reveal turn")
            await terms[seat].wait_for("Your turn to reveal")
            terms[seat].send(f"plan of seat {seat}\r")
        await until(lambda: state().phase is Phase.LEAD_REVEAL, "the lead's reveal")
        lead.send("the real plan\r")
        await until(lambda: state().phase in (Phase.ROUND_OVER, Phase.GAME_OVER), "points")
        s = state()
        # the rulebook's scoring, computed here from what was hidden
        correct = [g for g in s.guessers if s.guesses[g] == s.secret]
        for g in correct:
            expected[g] += 1
        expected[s.lead] += len(correct)
        if shouter in correct:
            expected[shouter] += 1
        elif expected[shouter] > 0:
            expected[shouter] -= 1
        assert list(s.scores) == expected
        if s.phase is Phase.ROUND_OVER:
            await alice.wait_for(f"Round {round_no} over")
            for term in terms.values():  # the next round starts when everyone is ready
                term.send("\r")
            await until(lambda r=round_no: state().round == r + 1, "the next round")
        else:  # the last round's summary, as every round's, then the results
            for term in terms.values():
                await term.wait_for(f"Round {round_no} over, the last")
                await term.wait_for("Press Enter for the final results")
                term.send("\r")
    assert table.status == "finished"
    top = max(expected)
    winners = [name for name, pts in zip(("alice", "bob", "carol"), expected, strict=True)
               if pts == top]
    for term in (alice, bob, carol):
        await term.wait_for("Final ranking")
        await term.wait_for(f"with {plural(top, 'point')}")
        banner = "\n".join(term.screen.display[:5])
        assert all(name in banner for name in winners)
        assert ("share the victory" in banner) == (len(winners) > 1)
    for term in (alice, bob, carol):
        term.close()
