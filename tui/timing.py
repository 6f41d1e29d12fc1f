"""When an input event reached the server, on the hub's clock.

The SSH input pump stamps a session's bytes with :func:`engine.clock.now_ms` as they come
off the channel (``server/input.py``), and the driver gives every event parsed from them
that stamp as ``arrived_at_ms``. A Stop! shout and a lead's pick carry it to the hub, which
orders the moves it holds while a Stop! race settles by it, not by when each app's
message loop got round to its key (the guarantee and its bound: ``docs/architecture.md``).
Events without a stamp (tests, local terminals, events Textual synthesizes) count as
arriving now.
"""

from __future__ import annotations

from engine.clock import now_ms


def arrival_ms(event: object) -> float:
    """``event.arrived_at_ms`` if the driver stamped it, else the hub's clock now."""
    stamp = getattr(event, "arrived_at_ms", None)
    if isinstance(stamp, int | float) and not isinstance(stamp, bool):
        return float(stamp)
    return now_ms()
