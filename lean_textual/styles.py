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
the cyclic garbage collector frees, while every player waits.
:func:`keep_component_nodes` restyles the same virtual nodes instead (once per process,
like the cache above).

Our own widgets go further (:func:`shared_component_style`): they hold no virtual nodes at
all. A virtual node with its styles is about 6.8 KB, and a screen of line widgets with a
few roles each would carry dozens of them, for every player. What a component class
looks like depends only on where its widget stands (the same path as below) and on any
inline colours on that path, so one cache serves every player; a miss styles a throwaway
virtual node.

Matching the rules to a node is shared too. To style a node, Textual checks every rule
that could apply against the node's path from the app down (types, ids, classes and pseudo
classes of each node on it), then sorts what matched by specificity: a large part of a new
connection's CPU, and most of each focus change. Every player's screens are the same
widgets in the same places, so :func:`share_rule_matches` keeps the result per path, for
the whole process: the key is the rule list (by content) and, for each node on the path,
its type, id, classes and the pseudo classes that some rule tests. What is cached is what
Textual would compute, given exactly what its computation reads (a test restyles every
node of every screen both ways and compares).

Storing the matched rules on a node is cheaper too (:func:`_replace_rules`): Textual calls
the setter of every rule, each checking and converting its value again; here only rules
that changed are set, and a new widget's plain rules are stored as their setters would
store them (a test builds the screens both ways and compares every node).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rich.style import Style as RichStyle
from textual.cache import LRUCache
from textual.color import Color
from textual.css.model import RuleSet
from textual.css.scalar import Scalar, ScalarOffset
from textual.css.styles import RulesMap, Styles
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.geometry import Spacing
from textual.style import Style as VisualStyle
from textual.widget import Widget

from lean_textual import internals as door

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
    """Make every Stylesheet in the process share one cache of parsed rule sets.

    Works around Textual giving each app a stylesheet that parses every source again;
    retire when Textual caches parsed CSS for the process."""
    if door.rule_parsing_replaced():
        return
    door.replace_rule_parsing(_sharing_parse)


def _sharing_parse(parse_one: door.ParseRules) -> door.ParseRules:
    """Textual's ``Stylesheet._parse_rules`` (``parse_one``), through one cache for the
    process."""

    def parse_rules(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
                    tie_breaker: int = 0, scope: str = "") -> list[RuleSet]:
        global parses
        key = (_key_of(door.stylesheet_variables(self)), css, read_from, is_default_rules,
               tie_breaker, scope)
        rules = _parsed.get(key)
        if rules is None:
            parses += 1
            rules = parse_one(self, css, read_from=read_from,
                              is_default_rules=is_default_rules, tie_breaker=tie_breaker,
                              scope=scope)
            if not any(rule.errors for rule in rules):
                _parsed[key] = rules
        return rules

    # mypy: a mark on the patched function (installed once), which mypy cannot type
    parse_rules._shared = True  # type: ignore[attr-defined]
    return parse_rules


def keep_component_nodes() -> None:
    """Make the stylesheet restyle a widget's component-class nodes in place.

    Works around Textual making new virtual nodes (reference cycles) on every restyle;
    retire when Textual restyles them in place."""
    if door.component_restyle_replaced():
        return

    def process_component_classes(self: Stylesheet, node: DOMNode) -> None:
        components = door.component_classes(node)
        if not components:
            return
        if getattr(node, "SHARED_COMPONENT_STYLES", False):
            # Looked up in the shared styles instead; its place may have changed though no
            # rule of its own did (then Textual has not told it), so it is told here.
            node.notify_style_update()
            return
        kept: dict[str, DOMNode] = node.__dict__.setdefault("_component_nodes", {})
        changed = False
        styles = door.component_styles(node)
        styles.clear()
        for component in sorted(components):
            virtual = kept.get(component)
            if virtual is None:
                kept[component] = virtual = DOMNode(classes=component)
                door.attach_virtual_node(virtual, node)
                before = None
            else:
                before = dict(door.rules_of(virtual.styles.base))
            self.apply(virtual, animate=False)
            if before is None or door.rules_of(virtual.styles.base) != before:
                changed = True
            styles[component] = virtual.styles
        if changed:
            node.refresh()

    # mypy: a mark on the patched function (installed once), which mypy cannot type
    process_component_classes._kept = True  # type: ignore[attr-defined]
    door.replace_component_restyle(process_component_classes)


_matches: LRUCache[tuple[Any, ...], tuple[Any, tuple[bool, bool, bool, bool]]] = LRUCache(8192)
_rule_lists: dict[int, tuple[list[RuleSet], int, int, tuple[str, ...]]] = {}
_rule_list_tokens: dict[tuple[RuleSet, ...], int] = {}
_matching: list[tuple[DOMNode, tuple[Any, ...]]] = []  # applies under way, innermost last
matched = 0
"""How many nodes were matched against the rules (the rest came from the cache)."""


def _rules_token(rules: list[RuleSet]) -> tuple[int, tuple[str, ...]]:
    """A small number for the rule list's content, and the pseudo classes its rules test;
    worked out once per list object."""
    known = _rule_lists.get(id(rules))
    if known is not None and known[0] is rules and known[1] == len(rules):
        return known[2], known[3]
    token = _rule_list_tokens.setdefault(tuple(rules), len(_rule_list_tokens))
    pseudo = tuple(sorted(set().union(*(rule.pseudo_classes for rule in rules))))
    if len(_rule_lists) > 256:
        _rule_lists.clear()
    _rule_lists[id(rules)] = (rules, len(rules), token, pseudo)
    return token, pseudo


_PATH = object()
"""Marks this module's entries in the cache ``Stylesheet.update_nodes`` hands each apply."""


def _match_key(stylesheet: Stylesheet, node: DOMNode,
               memo: dict[Any, Any] | None = None) -> tuple[Any, ...]:
    """The rule list's token and the node's path: each node from the app down, with its
    type, id, classes and the pseudo classes the rules test. ``memo`` (a restyle pass's
    own cache) keeps each node's path for the pass, so a child's path extends its
    parent's instead of walking every ancestor again."""
    token, pseudo = _rules_token(stylesheet.rules)
    return (token, _path(node, pseudo, memo))


def _step(node: DOMNode, pseudo: tuple[str, ...]) -> tuple[Any, ...]:
    tested: Sequence[bool] = ()
    if pseudo:
        has = node.has_pseudo_class
        tested = tuple([has(name) for name in pseudo])
    return (type(node), node.id, node.classes, tested)


def _path(node: DOMNode, pseudo: tuple[str, ...],
          memo: dict[Any, Any] | None) -> tuple[tuple[Any, ...], ...]:
    if memo is None:
        return tuple(_step(step, pseudo) for step in node.css_path_nodes)
    key = (_PATH, id(node), pseudo)  # the pass holds every node it styles: ids stay theirs
    path = memo.get(key)
    if path is None:
        parent = node.parent
        above = _path(parent, pseudo, memo) if isinstance(parent, DOMNode) else ()
        path = memo[key] = (*above, _step(node, pseudo))
    return path


def share_rule_matches() -> None:
    """Make every Stylesheet in the process share what its rules matched, per node path.

    Works around Textual matching every rule against every node of every app (and calling
    every rule's setter to store the result); retire when Textual shares matches between
    stylesheets with the same rules."""
    if getattr(Stylesheet.apply, "_shared", False):
        return
    apply_one = Stylesheet.apply
    replace_rules = Stylesheet.replace_rules  # a classmethod, bound to Stylesheet

    def apply(self: Stylesheet, node: DOMNode, *, animate: bool = False,
              cache: dict[tuple[Any, ...], Any] | None = None) -> None:
        global matched
        key = _match_key(self, node, cache)
        known = _matches.get(key)
        if known is not None:
            rules, flags = known
            door.set_match_flags(node, flags)
            if rules is not None:
                self.replace_rules(node, rules, animate=animate)
            door.restyle_components(self, node)
            return
        matched += 1
        _matching.append((node, key))
        try:
            apply_one(self, node, animate=animate, cache=cache)
        finally:
            _matching.pop()
        if key not in _matches:  # no rule applied: nothing was replaced
            _matches[key] = (None, _flags(node))

    def remember_rules(cls: type[Stylesheet], node: DOMNode, rules: Any,
                       animate: bool = False) -> None:
        if _matching and _matching[-1][0] is node:
            _matches[_matching[-1][1]] = (rules, _flags(node))
        if animate and "transitions" in rules:  # only new rules with transitions animate
            replace_rules(node, rules, animate=True)
        elif not (animate and rules == door.rules_of(node.styles.base)):  # Textual's return
            _replace_rules(node, rules)

    # mypy: marks on the patched functions (installed once, compared by tests)
    apply._shared = True  # type: ignore[attr-defined]
    apply._unshared = apply_one  # type: ignore[attr-defined]  # tests compare with it
    remember_rules._textual = replace_rules  # type: ignore[attr-defined]  # and with it
    # mypy: a patch of Textual's class is an assignment to a method
    Stylesheet.apply = apply  # type: ignore[method-assign]
    Stylesheet.replace_rules = classmethod(remember_rules)  # type: ignore[method-assign,assignment]


_SHAREABLE = (Color, RichStyle, Scalar, ScalarOffset, Spacing, bool, float, int, str, tuple)
"""Immutable values: what a setter stores may be stored for every node."""


_PLAIN = door.plain_rules()
_SCROLLBAR_COLOURS = door.plain_rules((door.SCROLLBAR_COLOUR_SETTER,))
_as_stored: dict[tuple[str, int], tuple[object, object]] = {}


def _stored_value(key: str, value: object) -> object:
    """What the setter of plain rule ``key`` stores for ``value`` as the parser made it
    (the same value, or a conversion: ``text-style`` flags arrive as a string and are
    stored as a Style); None when it may not be stored directly. Found by setting it on a
    blank Styles, once per value object of the parsed rules."""
    known = _as_stored.get((key, id(value)))
    if known is not None and known[0] is value:
        return known[1]
    blank = Styles()
    try:
        setattr(blank, key, value)
        stored = door.rules_of(blank).get(key)
    except Exception:  # then the setter decides, as it always did
        stored = None
    if not isinstance(stored, _SHAREABLE):
        stored = None
    if len(_as_stored) > 8192:  # rule values live in the parsed stylesheets: few of them
        _as_stored.clear()
    _as_stored[(key, id(value))] = (value, stored)
    return stored


def _replace_rules(node: DOMNode, rules: RulesMap) -> None:
    """Textual's ``Stylesheet.replace_rules`` without animation, for less: it calls the
    setter of every rule the node had or gets, each of which checks and converts its
    value again and compares it with the one stored. Here only rules whose values differ
    are set, and on a node not yet mounted (a new widget, with about 30 rules) a plain
    rule's value is stored as its setter would store it.
    The rest go through their setters, as Textual does."""
    base = node.styles.base
    current = door.rules_of(base)
    stored = False
    mounted = door.node_mounted(node)
    for key in current.keys() | rules.keys():
        value = rules.get(key)
        if current.get(key) == value:
            continue
        direct = None
        if value is not None and not mounted and key in _PLAIN and not (
                key in _SCROLLBAR_COLOURS and _shows_scrollbars(node)):
            direct = _stored_value(key, value)
        if direct is not None:
            # mypy: RulesMap is a TypedDict; key is one of its names (_PLAIN holds only those)
            current[key] = direct  # type: ignore[literal-required]
            stored = True
        else:
            setattr(base, key, value)
    if stored:
        door.rules_stored_directly(base)
    node.notify_style_update()


def _shows_scrollbars(node: DOMNode) -> bool:
    return bool(getattr(node, "show_vertical_scrollbar", False)
                or getattr(node, "show_horizontal_scrollbar", False))


_flags = door.match_flags


_component_visuals: LRUCache[tuple[Any, ...], VisualStyle] = LRUCache(4096)
_VISUAL_RULES = ("auto_color", "background", "background_tint", "color", "opacity",
                 "text_opacity", "text_style")
"""The inline rules ``Widget.get_visual_style`` reads on a widget and its ancestors."""


def _inline_key(widget: Widget) -> tuple[Any, ...]:
    """The inline visual rules on ``widget``'s path (almost always none)."""
    found: list[tuple[Any, ...]] = []
    for depth, node in enumerate(widget.ancestors_with_self):
        rules = door.rules_of(node.styles.inline)
        if rules:
            # mypy: RulesMap is a TypedDict; _VISUAL_RULES holds only its names
            found.append((depth, *((name, rules[name]) for name in _VISUAL_RULES  # type: ignore[literal-required]
                                   if name in rules)))
    return tuple(found)


def shared_component_style(widget: Widget, name: str,
                           match: tuple[Any, ...] | None = None) -> VisualStyle:
    """How ``widget``'s component class ``name`` looks, from one cache for the process.

    For widgets that set ``SHARED_COMPONENT_STYLES = True`` (then
    :func:`keep_component_nodes` gives them no virtual nodes of their own). The answer is
    what ``widget.get_visual_style(name)`` gives with Textual's own virtual node: a miss
    makes one, styles it, asks, and lets it go. ``match``: the widget's
    :func:`place_match`, if the caller keeps it (it is the costly part of the key)."""
    key = _place_key(widget, (name,), match)
    style = _component_visuals.get(key)
    if style is None:
        style = _component_visuals[key] = _styled_once(widget, name)
    return style


def place_match(widget: Widget) -> tuple[Any, ...]:
    """The rule matches' key of ``widget``'s place (its path from the app down, as the
    rules test it), good until the widget is next restyled."""
    return _match_key(widget.app.stylesheet, widget)


def _place_key(widget: Widget, names: tuple[str, ...],
               match: tuple[Any, ...] | None = None) -> tuple[Any, ...]:
    """What component styles ``names`` of ``widget`` depend on: its place (the rule
    matches' key, ``match`` if the caller kept it) and the inline colours on the way
    down. KeyError for an unknown name, as Textual raises."""
    unknown = set(names) - door.component_classes(widget)
    if unknown:
        raise KeyError(f"No {sorted(unknown)[0]!r} key in COMPONENT_CLASSES")
    if match is None:
        match = _match_key(widget.app.stylesheet, widget)
    return (match, _inline_key(widget), names)


def _styled_once(widget: Widget, name: str) -> VisualStyle:
    with _virtual_nodes(widget, (name,)):
        return widget.get_visual_style(name)


@contextmanager
def _virtual_nodes(widget: Widget, names: Sequence[str]) -> Iterator[None]:
    """Give ``widget`` Textual's virtual nodes for ``names`` for a moment (its own caches
    of what they give are emptied before and after)."""
    components = door.component_styles(widget)
    saved = dict(components)
    virtuals = []
    for name in names:
        virtual = DOMNode(classes=name)
        door.attach_virtual_node(virtual, widget)
        widget.app.stylesheet.apply(virtual, animate=False)
        components[name] = virtual.styles
        virtuals.append(virtual)
    door.empty_style_caches(widget)
    try:
        yield
    finally:
        components.clear()
        components.update(saved)
        door.empty_style_caches(widget)
        for virtual in virtuals:  # let reference counting free it: no cycle left
            door.free_virtual_node(virtual)


_component_rich: LRUCache[tuple[Any, ...], tuple[Any, Any]] = LRUCache(4096)


class KeepsItsPlace:
    """Mixed in (first) to a Textual widget that looks up its component styles in the
    process's caches: the costly part of their key, the widget's :func:`place_match`, is
    read once and kept until the widget is restyled. Not a ``Widget`` itself: Textual
    takes a widget's CSS type names from its first base that is one."""

    _place_match: tuple[Any, ...] | None = None

    def notify_style_update(self: Any) -> None:
        self._place_match = None  # restyled: its place may have changed
        super().notify_style_update()  # type: ignore[misc]  # a mixin: the widget has it

    def kept_place_match(self: Any) -> tuple[Any, ...]:
        """The widget's :func:`place_match`, read once per style change."""
        match: tuple[Any, ...] | None = self._place_match
        if match is None:
            match = self._place_match = place_match(self)
        return match


class SharedComponentRichStyles(KeepsItsPlace):
    """Mixed in (first) to a Textual widget that draws its parts with
    ``get_component_rich_style`` (an ``Input``'s cursor, placeholder and selection): those
    styles come from one cache for the process, and the widget holds no virtual nodes
    (:func:`keep_component_nodes`). Its place is kept until it is restyled (Textual
    empties ``_rich_style_cache`` on every repaint: every key typed into a field)."""

    SHARED_COMPONENT_STYLES = True

    def get_component_rich_style(self: Any, *names: str, partial: bool = False,
                                 default: RichStyle | None = None) -> RichStyle:
        cache = door.rich_style_cache(self)
        styles = cache.get(names)  # emptied on every restyle and repaint
        if styles is None:
            match = self.kept_place_match()
            try:
                key = _place_key(self, names, match)
            except KeyError:
                if default is not None:
                    return default
                raise
            styles = _component_rich.get(key)
            if styles is None:
                with _virtual_nodes(self, names):
                    styles = (Widget.get_component_rich_style(self, *names),
                              Widget.get_component_rich_style(self, *names, partial=True))
                _component_rich[key] = styles
            cache[names] = styles
        return styles[1] if partial else styles[0]
