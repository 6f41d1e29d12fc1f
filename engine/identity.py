"""Who a connected person is, as the hub sees them (no SSH types in here)."""

from __future__ import annotations

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
