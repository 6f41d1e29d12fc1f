"""What a closed screen leaves behind, given back at once.

When a player's screen closes (the table's setup screen when the game begins, the lobby
when they sit down), its widgets are cyclic garbage: only a full collection frees them,
and the server makes those rare (``server/gc_tuning.py``), because one walks every object
of every player. Meanwhile the garbage held every line the screen had drawn: Textual's
``LRUCache`` keeps its entries in a ring of lists, so even an emptied cache's old entries
(and the strips in them) wait for the collector too.

:func:`release` empties the caches of a closed screen's widgets, unlinking the rings, so
reference counting frees the drawn lines the moment the screen is gone: about 370 KB per
table screen, a sixth of a seated player's memory. It only empties caches (a state
Textual itself puts them in on every restyle or resize); the widgets keep all their
attributes, in case anything late still touches one.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.cache import FIFOCache, LRUCache
from textual.dom import DOMNode

from lean_textual.internals import empty_lru, node_caches
from lean_textual.partial_paint import forget_owners


def release(nodes: Iterable[DOMNode]) -> None:
    """Empty the caches of ``nodes`` (a closed screen and its widgets)."""
    for node in nodes:
        for value in vars(node).values():
            if isinstance(value, LRUCache):
                empty_lru(value)
            elif isinstance(value, FIFOCache):
                value.clear()
        styles_cache, compositor = node_caches(node)
        if styles_cache is not None:
            styles_cache.clear()
        if compositor is not None:
            forget_owners(compositor)
