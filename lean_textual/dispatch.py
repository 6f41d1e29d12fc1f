"""Message handlers found once per kind of widget and kind of message, not per message.

To deliver a message Textual looks for its handlers afresh every time
(``MessagePump._get_dispatch_methods``): it walks the receiver's whole class hierarchy
(a dozen classes for a widget), looks up two handler names and the ``@on`` handlers in each
class, and walks the message's hierarchy too. The answer depends only on the two classes,
and on a server of hundreds of apps the search costs more than the game's rules, hub and
journal together.

:func:`install` keeps, per receiver class, message class and handler name, the handlers the
search finds, in its order, grouped by the class that defines them. What depends on the
message itself is still decided per message, as Textual does: an ``@on`` handler with
selectors runs only if the message's widgets match them, and once a handler has called
``prevent_default()`` the handlers of base classes are skipped.

Which classes have handlers is found once: a handler given after its first message to a
class that had none for that message is not seen (nothing in this project does that). A
handler swapped on a class that had one is: it is read from the class at each dispatch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from textual.css.match import match
from textual.message import Message
from textual.message_pump import MessagePump

from lean_textual import internals as door
from lean_textual.internals import OnNoWidget

Step = tuple[type, Callable[..., Any] | None, dict[str, Any] | None]
"""A handler in order: the class it is found on, and either an ``@on`` handler with its
selectors, or ``None, None`` for the handler named after the message, read from the class
at each dispatch (so a test that swaps that method on the class is obeyed)."""

TEXTUAL_SEARCH = door.TEXTUAL_DISPATCH_SEARCH
"""Textual's own search, as it was before :func:`install` (tests compare the two)."""
_plans: dict[tuple[type, type, str], tuple[tuple[Step, ...], ...]] = {}
_installed = False


def _plan(pump_class: type, message_class: type, method_name: str,
          ) -> tuple[tuple[Step, ...], ...]:
    """Every handler Textual's search could yield, grouped by class, in its order."""
    message_mro = [kind for kind in message_class.__mro__ if issubclass(kind, Message)]
    groups: list[tuple[Step, ...]] = []
    for cls in pump_class.__mro__:
        steps: list[Step] = []
        decorated = door.decorated_handlers(cls)
        if decorated:
            for kind in message_mro:
                for method, selectors in decorated.get(kind, []):
                    steps.append((cls, method, selectors))
        if door.handler_named(cls, method_name) is not None:
            steps.append((cls, None, None))
        if steps:
            groups.append(tuple(steps))
    return tuple(groups)


def _selected(message: Message, selectors: dict[str, Any]) -> bool:
    from textual.widget import Widget

    for attribute, selector in selectors.items():
        node = getattr(message, attribute)
        if node is None:
            return False
        if not isinstance(node, Widget):
            raise OnNoWidget(
                f"on decorator can't match against {attribute!r} as it is not a widget.")
        if not match(selector, node):
            return False
    return True


def _get_dispatch_methods(self: MessagePump, method_name: str, message: Message,
                          ) -> Iterator[tuple[type, Callable[..., Any]]]:
    key = (self.__class__, message.__class__, method_name)
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = _plan(*key)
    dispatched: set[Callable[..., Any]] | None = None  # only @on handlers need it
    for steps in plan:
        if door.default_prevented(message):
            return
        for cls, method, selectors in steps:
            if method is None:  # by name, as Textual finds it
                named = door.handler_named(cls, method_name)
                if named is not None and not getattr(named, "_textual_on", None):
                    yield cls, named.__get__(self, cls)
                continue
            if dispatched is None:
                dispatched = set()
            elif method in dispatched:
                continue
            if selectors and (not door.sender_of(message) or not _selected(message, selectors)):
                continue
            dispatched.add(method)
            yield cls, method.__get__(self, cls)


def install() -> None:
    """Use the remembered handlers in every message pump of this process (once).

    Works around ``MessagePump._get_dispatch_methods`` walking both class hierarchies for
    every message; retire when Textual caches that search."""
    global _installed
    if not _installed:
        door.replace_dispatch_search(_get_dispatch_methods)
        _installed = True

