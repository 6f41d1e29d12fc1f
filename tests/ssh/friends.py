"""Three friends at one table of the real game, over SSH, each with their own key."""

from __future__ import annotations

import asyncssh

from engine.hub import Hub
from engine.tables import Table
from tests.ssh.client import TermClient, until


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
