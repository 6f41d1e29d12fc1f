"""Three friends at one table of the real game, over SSH, each with their own key."""

from __future__ import annotations

import asyncio
import time

import asyncssh

from engine.hub import Hub
from engine.rules import Phase
from engine.tables import Table
from tests.ssh.client import TermClient
from tests.waiting import until


async def three_at_a_table(
    port: int,
    hub: Hub,
    names: tuple[str, str, str] = ("alice", "bob", "carol"),
    sizes: tuple[tuple[int, int], ...] = ((120, 40), (120, 40), (100, 30)),
    keys: list[asyncssh.SSHKey] | None = None,
    source: str | None = None,
) -> tuple[list[TermClient], Table]:
    """The first creates a table from the lobby; the others land at it with ``ssh -t
    host CODE`` (each with their key in ``keys``, made here if None, from ``source``).
    Returns their terminals (in ``names`` order) and the table, not started."""
    keys = keys or [asyncssh.generate_private_key("ssh-ed25519") for _ in names]
    host = await TermClient.connect(port, username=names[0], key=keys[0], size=sizes[0],
                                    source=source)
    await host.wait_for("the lobby")
    host.send("c")
    await until(lambda: len(hub.tables) == 1, f"{names[0]}'s table")
    table = next(iter(hub.tables.values()))
    friends = [
        await TermClient.connect(port, username=name, key=key, size=size, command=table.code,
                                 source=source)
        for name, key, size in zip(names[1:], keys[1:], sizes[1:], strict=True)
    ]
    await until(lambda: len(table.seats) == 3, "three seats")
    await host.wait_for(names[2])
    return [host, *friends], table


async def _marked(term: TermClient, marks: int, since: float, into: list[float]) -> None:
    """Wait until ``term`` shows ``marks`` picked items (●); note the ms since ``since``."""
    for _ in range(1000):
        if term.text().count("●") >= marks:
            into.append((time.monotonic() - since) * 1000)
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"{marks} picks not on screen after 5 s:\n{term.text()}")


async def play_a_round(terms: dict[int, TermClient], table: Table,
                       pick_ms: list[float]) -> None:
    """One round by the players' keys: the lead picks row 1 in every column, timed from
    the key to each other seat's screen (``pick_ms``); everyone guesses 1 and reveals
    with no plan, then all are ready for the next round."""
    state = table.state
    assert state is not None
    for column in range(4):
        await until(lambda c=column: table.state is not None and len(table.state.picks) == c,
                    "the lead's turn")
        since = time.monotonic()
        terms[state.lead].send("1")
        await asyncio.gather(*(_marked(term, column + 1, since, pick_ms)
                               for seat, term in terms.items() if seat != state.lead))
    for seat in state.guessers:
        terms[seat].send("1")

    def phase() -> Phase:
        assert table.state is not None
        return table.state.phase

    await until(lambda: phase() is not Phase.GUESSING, "every guess hidden")
    while phase() is Phase.REVEALING:
        seat = table.state.next_revealer
        assert seat is not None
        await terms[seat].wait_for("Your turn to reveal")
        terms[seat].send("\r")
        await until(lambda seat=seat: phase() is not Phase.REVEALING
                    or table.state.next_revealer != seat, "the next reveal")
    terms[state.lead].send("\r")
    await until(lambda: phase() is Phase.ROUND_OVER, "the round's points")
    for term in terms.values():
        term.send("\r")
    await until(lambda: table.state is not None and table.state.round == state.round + 1,
                "the next round")
