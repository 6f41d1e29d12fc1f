"""Who a connected person is, as the hub sees them (no SSH types in here)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass


@dataclass(frozen=True)
class Player:
    """A person at the keyboard.

    ``id`` is durable: ``"key:SHA256:..."`` for a client that proved a public key, or
    ``"guest:<random>"`` for a keyless guest (who gets a seat code to come back with).
    ``name`` is the starting display name (the SSH username), cleaned by the hub.
    ``address`` is where they connect from (the server's word for it: an IP address), or
    empty when unknown; a keyless guest has nothing else that outlasts a connection.
    """

    id: str
    name: str
    address: str = ""

    @property
    def is_guest(self) -> bool:
        return self.id.startswith("guest:")


class ChosenNames:
    """The name each person last chose, by player id, while the server runs: a player
    who renamed themselves and reconnects keeps it. The newest ``limit`` are kept."""

    def __init__(self, limit: int = 10_000) -> None:
        self._names: OrderedDict[str, str] = OrderedDict()
        self._limit = limit

    def get(self, player_id: str) -> str | None:
        return self._names.get(player_id)

    def chose(self, player_id: str, name: str) -> None:
        self._names.pop(player_id, None)
        self._names[player_id] = name
        if len(self._names) > self._limit:
            self._names.popitem(last=False)
