"""When an input event reached the server, on the hub's clock.

The SSH driver stamps every input event it creates with ``arrived_at_ms`` (from
:func:`engine.clock.now_ms`) as its bytes come off the channel. Stop! races are decided by
that stamp, not by when this app's message loop got round to the event, so a busy session
does not lose a race it won. Events without a stamp (tests, local terminals, events Textual
synthesizes) count as arriving now.
"""

from __future__ import annotations

from engine.clock import now_ms


def arrival_ms(event: object) -> float:
    """``event.arrived_at_ms`` if the driver stamped it, else the hub's clock now."""
    stamp = getattr(event, "arrived_at_ms", None)
    if isinstance(stamp, int | float) and not isinstance(stamp, bool):
        return float(stamp)
    return now_ms()
