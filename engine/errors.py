"""Why the house refuses something, by kind; ``str(error)`` is always meant for the player.

Every refusal is an :class:`IllegalAction`, so code that only tells the player why keeps
catching that one type. The kinds say whose "no" it is:

- :class:`BrokenRule`: the rules of the game or of the table (not your turn, the table is
  full, a guess outside 1-4);
- :class:`NotAllowed`: this person may not (only the host, a removed player, a spectator);
- :class:`TooFast`: a limit on how often (chat lines, new names);
- :class:`NotSaved`: the move was fine but the disk did not keep it: nothing changed, try
  again.
"""

from __future__ import annotations


class IllegalAction(Exception):
    """Something the house refuses; nothing changed. ``str(error)`` is for the player."""


class BrokenRule(IllegalAction):
    """The rules of the game or of the table do not allow it now."""


class NotAllowed(IllegalAction):
    """This person may not do it (someone else may)."""


class TooFast(IllegalAction):
    """Too soon after the last one: wait a moment."""


class NotSaved(IllegalAction):
    """The server could not save it, so it did not happen."""
