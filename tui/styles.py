"""Styles parsed once per process, not once per player.

Textual gives every app its own :class:`~textual.css.stylesheet.Stylesheet`, and each one
parses every source again: our ``.tcss`` files and the ``DEFAULT_CSS`` of every widget
class. On a server with one app per SSH session that parse was a large part of the cost of
a new connection. The parsed rules depend only on the CSS text, where it came from, and the
theme's variables, and Textual never changes a parsed rule set afterwards, so one cache,
keyed on all of those, serves every app in the process.

:func:`share_parsed_css` installs that cache (once; calling it again does nothing). The
app calls it before its first screen, the server once at start-up.
"""

from __future__ import annotations

from typing import Any

from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

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
