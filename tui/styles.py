"""Styles parsed once per process, not once per player, and restyled without garbage.

Textual gives every app its own :class:`~textual.css.stylesheet.Stylesheet`, and each one
parses every source again: our ``.tcss`` files and the ``DEFAULT_CSS`` of every widget
class. On a server with one app per SSH session that parse was a large part of the cost of
a new connection. The parsed rules depend only on the CSS text, where it came from, and the
theme's variables, and Textual never changes a parsed rule set afterwards, so one cache,
keyed on all of those, serves every app in the process.

:func:`share_parsed_css` installs that cache (once; calling it again does nothing). The
app calls it before its first screen, the server once at start-up.

A widget with component classes (an ``Input``'s cursor and placeholder, for one) gets its
component styles from small virtual nodes that the stylesheet matches like any other node.
Textual made new virtual nodes every time it restyled the widget (every focus change, every
class change) and dropped the old ones, each a reference cycle of about 40 objects that only
the cyclic garbage collector frees. At 400 players that garbage was about a third of what a
middle-generation collection walked, and those collections paused every player for about
200 ms. :func:`keep_component_nodes` restyles the same virtual nodes instead (once per
process, like the cache above).
"""

from __future__ import annotations

from typing import Any

from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

_parsed: LRUCache[tuple[Any, ...], list[RuleSet]] = LRUCache(1024)
_variables_key: dict[int, tuple[dict[str, str], tuple[tuple[str, str], ...]]] = {}
parses = 0
"""How many sources were really parsed (the rest came from the cache): tests read it."""


def _key_of(variables: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """A hashable form of a variables dict, computed once per dict object."""
    known = _variables_key.get(id(variables))
    if known is not None and known[0] is variables:
        return known[1]
    key = tuple(sorted(variables.items()))
    if len(_variables_key) > 64:  # a theme change makes a new dict: keep a few
        _variables_key.clear()
    _variables_key[id(variables)] = (variables, key)
    return key


def share_parsed_css() -> None:
    """Make every Stylesheet in the process share one cache of parsed rule sets."""
    if getattr(Stylesheet._parse_rules, "_shared", False):
        return
    parse_one = Stylesheet._parse_rules

    def parse_rules(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
                    tie_breaker: int = 0, scope: str = "") -> list[RuleSet]:
        global parses
        key = (_key_of(self._variables), css, read_from, is_default_rules, tie_breaker, scope)
        rules = _parsed.get(key)
        if rules is None:
            parses += 1
            rules = parse_one(self, css, read_from=read_from,
                              is_default_rules=is_default_rules, tie_breaker=tie_breaker,
                              scope=scope)
            if not any(rule.errors for rule in rules):
                _parsed[key] = rules
        return rules

    parse_rules._shared = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = parse_rules  # type: ignore[method-assign]


def keep_component_nodes() -> None:
    """Make the stylesheet restyle a widget's component-class nodes in place."""
    if getattr(Stylesheet._process_component_classes, "_kept", False):
        return

    def process_component_classes(self: Stylesheet, node: DOMNode) -> None:
        components = node._get_component_classes()
        if not components:
            return
        kept: dict[str, DOMNode] = node.__dict__.setdefault("_component_nodes", {})
        changed = False
        node._component_styles.clear()
        for component in sorted(components):
            virtual = kept.get(component)
            if virtual is None:
                kept[component] = virtual = DOMNode(classes=component)
                virtual._attach(node)
                before = None
            else:
                before = dict(virtual.styles.base._rules)
            self.apply(virtual, animate=False)
            if before is None or virtual.styles.base._rules != before:
                changed = True
            node._component_styles[component] = virtual.styles
        if changed:
            node.refresh()

    process_component_classes._kept = True  # type: ignore[attr-defined]
    Stylesheet._process_component_classes = process_component_classes  # type: ignore[method-assign]
