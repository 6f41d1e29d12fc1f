"""The one door to Textual's internals: the only module of the project that names a private
Textual module, attribute or method (``tests/textual_door`` checks every other module).

The rest of ``lean_textual``, ``tui`` and ``server`` reach Textual's private state through
the small functions and hook classes here, each named for what it does. Everything this
module names is listed in :data:`PRIVATE_NAMES`, which the contract test reads: after an
upgrade it names each one that moved or changed, before anything else runs.

It was written against exactly one Textual (:data:`TEXTUAL_VERSION`): imported with any
other, it stops the process with one line naming the version it needs. Each patch and hook
below says which Textual behaviour it works around and what would retire it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager
from importlib.metadata import version
from typing import Any

TEXTUAL_VERSION = "8.2.8"
"""The Textual this module was written for, as pinned in ``pyproject.toml``."""


class WrongTextual(SystemExit):
    """Textual is not the version this module was written for."""


def check_textual_version(installed: str | None = None) -> None:
    """Stop (:class:`WrongTextual`, one line) unless Textual is :data:`TEXTUAL_VERSION`."""
    installed = version("textual") if installed is None else installed
    if installed != TEXTUAL_VERSION:
        raise WrongTextual(
            f"Mission Impractical needs Textual {TEXTUAL_VERSION} exactly (installed: "
            f"{installed}); reinstall it: pip install textual=={TEXTUAL_VERSION}")


check_textual_version()

# Imported only once the version is known to be the right one.
from rich.console import RenderableType  # noqa: E402
from textual._ansi_theme import DEFAULT_TERMINAL_THEME  # noqa: E402
from textual._compositor import Compositor  # noqa: E402
from textual._context import active_app  # noqa: E402
from textual._on import OnNoWidget  # noqa: E402
from textual._styles_cache import StylesCache  # noqa: E402
from textual._xterm_parser import XTermParser  # noqa: E402
from textual.app import App  # noqa: E402
from textual.cache import FIFOCache, LRUCache  # noqa: E402
from textual.content import Content  # noqa: E402
from textual.css._style_properties import (  # noqa: E402
    BooleanProperty,
    BoxProperty,
    ColorProperty,
    DockProperty,
    FractionalProperty,
    HatchProperty,
    IntegerProperty,
    KeylineProperty,
    NameListProperty,
    NameProperty,
    OffsetProperty,
    ScalarListProperty,
    ScalarProperty,
    ScrollbarColorProperty,
    SpacingProperty,
    SplitProperty,
    StringEnumProperty,
    StyleFlagsProperty,
)
from textual.css.styles import RulesMap, Styles, StylesBase  # noqa: E402
from textual.css.stylesheet import Stylesheet  # noqa: E402
from textual.dom import DOMNode  # noqa: E402
from textual.driver import Driver  # noqa: E402
from textual.geometry import Offset, Region, Size  # noqa: E402
from textual.message import Message  # noqa: E402
from textual.message_pump import MessagePump  # noqa: E402
from textual.notifications import Notification, Notifications  # noqa: E402
from textual.screen import Screen  # noqa: E402
from textual.strip import Strip  # noqa: E402
from textual.widget import Widget  # noqa: E402
from textual.widgets import Input  # noqa: E402
from textual.widgets._toast import ToastHolder, ToastRack  # noqa: E402

__all__ = [
    "DEFAULT_TERMINAL_THEME", "PLAIN_STYLE_SETTERS", "SCROLLBAR_COLOUR_SETTER", "Compositor",
    "OnNoWidget", "StylesCache", "ToastHolder", "ToastRack", "active_app",
]

PRIVATE_NAMES: tuple[tuple[str, str, str], ...] = (
    # (where, name, parameters): a private module of a package, or a name of a class
    # ("module:Class"), with the parameters of a method ("" for an attribute)
    ("textual", "_ansi_theme", ""),
    ("textual", "_compositor", ""),
    ("textual", "_context", ""),
    ("textual", "_on", ""),
    ("textual", "_styles_cache", ""),
    ("textual", "_xterm_parser", ""),
    ("textual.css", "_style_properties", ""),
    ("textual.widgets", "_toast", ""),
    ("textual.app:App", "_batch_count", ""),
    ("textual.app:App", "_begin_update", "(self)"),
    ("textual.app:App", "_capture_stderr", ""),
    ("textual.app:App", "_capture_stdout", ""),
    ("textual.app:App", "_check_bindings", "(self, key, priority)"),
    ("textual.app:App", "_closed", ""),
    ("textual.app:App", "_context", "(self)"),
    ("textual.app:App", "_disable_tooltips", ""),
    ("textual.app:App", "_driver", ""),
    ("textual.app:App", "_end_batch", "(self)"),
    ("textual.app:App", "_end_update", "(self)"),
    ("textual.app:App", "_exception", ""),
    ("textual.app:App", "_exit", ""),
    ("textual.app:App", "_exit_renderables", ""),
    ("textual.app:App", "_handle_exception", "(self, error)"),
    ("textual.app:App", "_notifications", ""),
    ("textual.app:App", "_previous_cursor_position", ""),
    ("textual.app:App", "_print_error_renderables", "(self)"),
    ("textual.app:App", "_refresh_notifications", "(self)"),
    ("textual.app:App", "_registered_themes", ""),
    ("textual.app:App", "_running", ""),
    ("textual.app:App", "_screen_stack", ""),
    ("textual._styles_cache:StylesCache", "_cache", ""),
    ("textual._styles_cache:StylesCache", "_dirty_lines", ""),
    ("textual._compositor:Compositor", "_cuts", ""),
    ("textual._compositor:Compositor", "_dirty_regions", ""),
    ("textual._compositor:Compositor", "_visible_widgets", ""),
    ("textual.cache:FIFOCache", "_maxsize", ""),
    ("textual.cache:LRUCache", "_cache", ""),
    ("textual.css._style_properties:StringEnumProperty", "_display", ""),
    ("textual.css._style_properties:StringEnumProperty", "_pointer", ""),
    ("textual.css.styles:Styles", "_rules", ""),
    ("textual.css.styles:Styles", "_updates", ""),
    ("textual.css.stylesheet:Stylesheet", "_parse_rules",
     "(self, css, read_from, is_default_rules, tie_breaker, scope)"),
    ("textual.css.stylesheet:Stylesheet", "_process_component_classes", "(self, node)"),
    ("textual.css.stylesheet:Stylesheet", "_variables", ""),
    ("textual.dom:DOMNode", "_attach", "(self, parent)"),
    ("textual.dom:DOMNode", "_component_styles", ""),
    ("textual.dom:DOMNode", "_css_styles", ""),
    ("textual.dom:DOMNode", "_decorated_handlers", ""),
    ("textual.dom:DOMNode", "_detach", "(self)"),
    ("textual.dom:DOMNode", "_get_component_classes", "(cls)"),
    ("textual.dom:DOMNode", "_has_focus_within", ""),
    ("textual.dom:DOMNode", "_has_hover_style", ""),
    ("textual.dom:DOMNode", "_has_odd_or_even", ""),
    ("textual.dom:DOMNode", "_has_order_style", ""),
    ("textual.dom:DOMNode", "_inline_styles", ""),
    ("textual.dom:DOMNode", "_pruning", ""),
    ("textual.driver:Driver", "_app", ""),
    ("textual.driver:Driver", "_mouse", ""),
    ("textual.driver:Driver", "_size", ""),
    ("textual._xterm_parser:XTermParser", "_parse_extended_key", "(self, sequence)"),
    ("textual.message:Message", "_no_default_action", ""),
    ("textual.message:Message", "_sender", ""),
    ("textual.message_pump:MessagePump", "_dispatch_message", "(self, message)"),
    ("textual.message_pump:MessagePump", "_is_mounted", ""),
    ("textual.message_pump:MessagePump", "_get_dispatch_methods", "(self, method_name, message)"),
    ("textual.notifications:Notifications", "_notifications", ""),
    ("textual.notifications:Notifications", "_reap", "(self)"),
    ("textual.screen:Screen", "_clear_tooltip", "(self)"),
    ("textual.screen:Screen", "_compose", "(self)"),
    ("textual.screen:Screen", "_compositor", ""),
    ("textual.screen:Screen", "_compositor_refresh", "(self)"),
    ("textual.screen:Screen", "_dirty_widgets", ""),
    ("textual.screen:Screen", "_extend_compose", "(self, widgets)"),
    ("textual.screen:Screen", "_get_breakpoint_classes", "(self, dimension, breakpoints)"),
    ("textual.screen:Screen", "_layout_widgets", ""),
    ("textual.screen:Screen", "_on_timer_update", "(self)"),
    ("textual.screen:Screen", "_refresh_layout", "(self, size, scroll)"),
    ("textual.screen:Screen", "_screen_resized", "(self, size)"),
    ("textual.strip:Strip", "_cell_count", ""),
    ("textual.strip:Strip", "_cell_length", ""),
    ("textual.strip:Strip", "_crop_cache", ""),
    ("textual.strip:Strip", "_crop_extend_cache", ""),
    ("textual.strip:Strip", "_divide_cache", ""),
    ("textual.strip:Strip", "_filter_cache", ""),
    ("textual.strip:Strip", "_line_length_cache", ""),
    ("textual.strip:Strip", "_link_ids", ""),
    ("textual.strip:Strip", "_offsets_cache", ""),
    ("textual.strip:Strip", "_render_cache", ""),
    ("textual.strip:Strip", "_segments", ""),
    ("textual.strip:Strip", "_style_cache", ""),
    ("textual.widget:Widget", "_border_subtitle", ""),
    ("textual.widget:Widget", "_border_title", ""),
    ("textual.widget:Widget", "_exchange_repaint_regions", "(self)"),
    ("textual.widget:Widget", "_get_subtitle_style_information", "(self, background)"),
    ("textual.widget:Widget", "_get_title_style_information", "(self, background)"),
    ("textual.widget:Widget", "_layout_required", ""),
    ("textual.widget:Widget", "_recompose_required", ""),
    ("textual.widget:Widget", "_refresh_styles_required", ""),
    ("textual.widget:Widget", "_repaint_required", ""),
    ("textual.widget:Widget", "_rich_style_cache", ""),
    ("textual.widget:Widget", "_scroll_required", ""),
    ("textual.widget:Widget", "_styles_cache", ""),
    ("textual.widget:Widget", "_visual_style_cache", ""),
    ("textual.widgets._input:Input", "_cursor_visible", ""),
    ("textual.widgets._input:Input", "_initial_value", ""),
    ("textual.widgets._input:Input", "_on_key", "(self, event)"),
    ("textual.widgets._input:Input", "_on_paste", "(self, event)"),
    ("textual.widgets._input:Input", "_suggestion", ""),
    ("textual.widgets._toast:ToastRack", "_toast_id", "(notification)"),
)
"""Every private Textual name this module names. The contract test checks each against
the installed Textual (it exists; a method takes the arguments used here)."""

# -- widgets: what a widget asked for, and its caches -----------------------------------


def repaint_asked(widget: Widget) -> bool:
    """Whether ``widget`` asked to be repainted and has not been yet."""
    return widget._repaint_required


def repaint_done(widget: Widget) -> None:
    """Mark ``widget``'s repaint as done (its lines are in a frame being drawn)."""
    widget._repaint_required = False


def asks_more_than_a_repaint(widget: Widget) -> bool:
    """Whether ``widget`` asked for a layout, a scroll, a restyle or a recompose."""
    return (widget._layout_required or widget._scroll_required
            or widget._refresh_styles_required or widget._recompose_required)


def asks_anything(widget: Widget) -> bool:
    """Whether ``widget`` asked for anything its message queue does (a repaint too)."""
    return widget._repaint_required or asks_more_than_a_repaint(widget)


def layout_asked(widget: Widget) -> bool:
    return widget._layout_required


def layout_done(widget: Widget) -> None:
    widget._layout_required = False


def scroll_asked(widget: Widget) -> bool:
    return widget._scroll_required


def scroll_done(widget: Widget) -> None:
    widget._scroll_required = False


def recompose_asked(widget: Widget) -> bool:
    return widget._recompose_required


def repaint_regions(widget: Widget) -> Collection[Region]:
    """The regions ``widget`` asked to have repainted, handed over (it forgets them)."""
    return widget._exchange_repaint_regions()


def styles_cache_of(widget: Widget) -> StylesCache:
    """``widget``'s cache of finished lines."""
    return widget._styles_cache


def give_styles_cache(widget: Widget, cache: StylesCache) -> None:
    """Make ``cache`` (a :class:`StylesCache` of ours) ``widget``'s cache of finished lines.
    Retire with a public way to choose a widget's line cache."""
    widget._styles_cache = cache


def keep_finished_line(cache: StylesCache, y: int, strip: Strip) -> None:
    """Keep ``strip`` as line ``y`` of ``cache``, as if Textual had drawn it there."""
    cache._cache[y] = strip
    cache._dirty_lines.discard(y)


def border_title(widget: Widget) -> Content | None:
    """``widget``'s border title as Textual keeps it (``border_title`` converts)."""
    return widget._border_title


def set_border_title(widget: Widget, title: Content) -> None:
    """Set ``widget``'s border title without the reactive, which repaints the whole
    widget. Retire with a border title that repaints the border row alone."""
    widget._border_title = title


def border_titles(widget: Widget, base_background: Any) -> tuple[Any, Any]:
    """The border title and subtitle as ``StylesCache.render_widget`` hands them over."""
    title, subtitle = widget._border_title, widget._border_subtitle
    return (None if title is None else (title, *widget._get_title_style_information(
                base_background)),
            None if subtitle is None else (subtitle, *widget._get_subtitle_style_information(
                base_background)))


def empty_style_caches(widget: Widget) -> None:
    """Empty ``widget``'s caches of its visual and rich styles."""
    widget._visual_style_cache.clear()
    widget._rich_style_cache.clear()


def rich_style_cache(widget: Widget) -> dict[Any, Any]:
    """``widget``'s cache of component rich styles (emptied on each restyle and repaint)."""
    return widget._rich_style_cache


# -- DOM nodes and styles ---------------------------------------------------------------


def component_classes(node: DOMNode) -> frozenset[str]:
    """The component classes ``node``'s class declares (with those of its bases)."""
    return node._get_component_classes()


def component_styles(node: DOMNode) -> dict[str, StylesBase]:
    """``node``'s styles per component class (Textual's own dict: changed in place)."""
    # mypy: Textual types it as dict[str, RenderStyles]; its values are styles to set
    return node._component_styles  # type: ignore[return-value]


def attach_virtual_node(virtual: DOMNode, node: DOMNode) -> None:
    """Hang ``virtual`` (a component-class node) under ``node``, as Textual does."""
    virtual._attach(node)


def free_virtual_node(virtual: DOMNode) -> None:
    """Detach ``virtual`` and break its styles' links back to it (no cycle left)."""
    virtual._detach()
    virtual._css_styles.node = None
    virtual._inline_styles.node = None


def node_mounted(node: DOMNode) -> bool:
    return node._is_mounted


def rules_of(styles: Styles) -> RulesMap:
    """The rules a styles object holds (Textual's own dict)."""
    return styles._rules


def rules_stored_directly(styles: Styles) -> None:
    """Tell ``styles`` its rules changed without its setters (they count updates)."""
    styles._updates += 1


MatchFlags = tuple[bool, bool, bool, bool]


def match_flags(node: DOMNode) -> MatchFlags:
    """What matching the rules to ``node`` notes on it besides the rules."""
    return (node._has_hover_style, node._has_focus_within, node._has_order_style,
            node._has_odd_or_even)


def set_match_flags(node: DOMNode, flags: MatchFlags) -> None:
    (node._has_hover_style, node._has_focus_within, node._has_order_style,
     node._has_odd_or_even) = flags


def stylesheet_variables(stylesheet: Stylesheet) -> dict[str, str]:
    return stylesheet._variables


def restyle_components(stylesheet: Stylesheet, node: DOMNode) -> None:
    """Style ``node``'s component-class nodes, as ``Stylesheet.apply`` ends."""
    stylesheet._process_component_classes(node)


def _plain_setter(setter: object) -> bool:
    return not (isinstance(setter, StringEnumProperty)
                and (setter._display or setter._pointer))


PLAIN_STYLE_SETTERS = (BooleanProperty, BoxProperty, ColorProperty, DockProperty,
                       FractionalProperty, HatchProperty, IntegerProperty, KeylineProperty,
                       NameListProperty, NameProperty, OffsetProperty, ScalarListProperty,
                       ScalarProperty, ScrollbarColorProperty, SpacingProperty,
                       SplitProperty, StringEnumProperty, StyleFlagsProperty)
"""Style setters whose only effects are to store a value (``set_rule``) and to refresh the
node, which does nothing before the node is mounted; a scrollbar colour also repaints the
scrollbars shown (none, on a node not mounted). The others do more: overflow shows or
hides scrollbars, ``display`` tells the parent's child list, a layout is a new object for
each node, transitions are copied; those are always called."""
SCROLLBAR_COLOUR_SETTER = ScrollbarColorProperty


def plain_rules(kinds: tuple[type, ...] = PLAIN_STYLE_SETTERS) -> frozenset[str]:
    """The rules of ``Styles`` whose setters are of ``kinds`` (a ``display`` or ``pointer``
    setter does more than store: never plain)."""
    return frozenset(name for cls in Styles.__mro__ for name, setter in vars(cls).items()
                     if type(setter) in kinds and _plain_setter(setter))


ParseRules = Callable[..., list[Any]]


def replace_rule_parsing(make: Callable[[ParseRules], ParseRules]) -> None:
    """``Stylesheet._parse_rules`` becomes ``make(Textual's)``. Works around every app
    parsing the same CSS again (Textual keeps one stylesheet per app); retire with a
    process-wide cache of parsed CSS in Textual."""
    # mypy: a patch of Textual's class is an assignment to a method
    Stylesheet._parse_rules = make(Stylesheet._parse_rules)  # type: ignore[method-assign]


def replace_component_restyle(restyle: Callable[[Stylesheet, DOMNode], None]) -> None:
    """``Stylesheet._process_component_classes`` becomes ``restyle``. Works around Textual
    making new virtual nodes (each a reference cycle) on every restyle; retire when
    Textual restyles its component nodes in place."""
    # mypy: a patch of Textual's class is an assignment to a method (a plain function)
    Stylesheet._process_component_classes = restyle  # type: ignore[method-assign,assignment]


def component_restyle_replaced() -> bool:
    return getattr(Stylesheet._process_component_classes, "_kept", False)


def rule_parsing_replaced() -> bool:
    return getattr(Stylesheet._parse_rules, "_shared", False)


# -- screens ----------------------------------------------------------------------------


def compositor_of(screen: Screen[Any]) -> Compositor:
    return screen._compositor


def dirty_widgets(screen: Screen[Any]) -> set[Widget]:
    """The widgets ``screen``'s next update repaints (Textual's own set)."""
    return screen._dirty_widgets


def whole_screen_dirty(screen: Screen[Any]) -> None:
    """Have ``screen``'s next compositor update draw every cell."""
    compositor = screen._compositor
    compositor._dirty_regions.add(compositor.size.region)


def lay_out_if_asked_and_draw(screen: Screen[Any]) -> None:
    """Lay ``screen`` out now if it waits for a layout, then have its compositor draw."""
    if screen._layout_required:
        screen._refresh_layout()
        screen._layout_required = False
    screen._compositor_refresh()


def breakpoint_classes(screen: Screen[Any], dimension: int,
                       breakpoints: list[tuple[int, str]]) -> set[str]:
    return screen._get_breakpoint_classes(dimension, breakpoints)


class ScreenHooks(Screen[Any]):
    """A screen whose private steps of Textual's are reached through public-named hooks,
    each one Textual's own step until a subclass overrides it. Works around there being
    no public way to change how a screen lays out, paints or settles; retire each hook
    with a public API for it (or with Textual painting a refresh in the same turn)."""

    EXTRAS = True
    """Whether Textual adds its tooltip and notifications rack to the screen."""

    async def _compose(self) -> None:
        self.before_compose()
        await super()._compose()

    def before_compose(self) -> None:
        """Runs before the screen composes its widgets (none of them exists yet)."""

    def _extend_compose(self, widgets: list[Widget]) -> None:
        if self.EXTRAS:
            super()._extend_compose(widgets)

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        self.lay_out(size, scroll)

    def lay_out(self, size: Size | None = None, scroll: bool = False) -> None:
        """Lay the screen out (``scroll``: only what scrolled), as Textual does."""
        if not scroll or self._layout_widgets:  # a full reflow: Textual's own test
            self.full_layout_starts()
        super()._refresh_layout(size, scroll)

    def full_layout_starts(self) -> None:
        """A full layout is about to run (not one of what scrolled)."""

    def _compositor_refresh(self) -> None:
        self.refresh_compositor()

    def refresh_compositor(self) -> None:
        """Draw what the compositor has to draw, as Textual does."""
        super()._compositor_refresh()

    def _on_timer_update(self) -> None:
        self.timer_update()

    def timer_update(self) -> None:
        """Textual's update of the screen when its update timer fires."""
        super()._on_timer_update()

    def _screen_resized(self, size: Size) -> None:
        self.resized(size)

    def resized(self, size: Size) -> None:
        """The screen is now ``size``: Textual lays it out again."""
        super()._screen_resized(size)

    def _clear_tooltip(self) -> None:
        """Textual looks for its tooltip widget on every key pressed, by a search that
        raises (and formats a message) when there is none; with tooltips off there never
        is. Retire when Textual skips the search with tooltips disabled."""
        if not self.app._disable_tooltips:
            super()._clear_tooltip()

    @property
    def layout_pending(self) -> bool:
        """Whether the screen waits for a layout or a scroll."""
        return self._layout_required or self._scroll_required


# -- apps -------------------------------------------------------------------------------


def in_batch(app: App[Any]) -> bool:
    """Whether ``app`` holds its output back (``App.batch_update``)."""
    return bool(app._batch_count)


def top_screen(app: App[Any]) -> Screen[Any] | None:
    """The screen on top of ``app``'s stack (the one shown), None when there is none."""
    stack = app._screen_stack
    return stack[-1] if stack else None


def driver_of(app: App[Any]) -> Driver | None:
    return app._driver


def writes_to_a_terminal(app: App[Any]) -> bool:
    """Whether ``app`` is running, not closed, and draws to a real terminal in full."""
    return (app._running and not app._closed and not app.is_headless
            and app._driver is not None and not app.is_inline)


def write_in_update(app: App[Any], pieces: Sequence[str], cursor: Offset) -> None:
    """Write ``pieces`` as ``App._display`` writes a compositor's update: in a synchronized
    update, the terminal's cursor put back at ``cursor``; the caller flushes."""
    driver = app._driver
    assert driver is not None
    app._begin_update()
    try:
        for piece in pieces:
            driver.write(piece)
        driver.write(f"\x1b[{cursor.y + 1};{cursor.x + 1}H")
    finally:
        app._end_update()
    app._previous_cursor_position = cursor


def flush_driver(app: App[Any]) -> None:
    driver = app._driver
    if driver is not None:
        driver.flush()


def disable_tooltips(app: App[Any]) -> None:
    """No screen of ``app`` gets Textual's tooltip widget (about 14 KB a screen)."""
    app._disable_tooltips = True


def registered_themes(app: App[Any]) -> dict[str, Any]:
    """``app``'s themes (Textual's own dict; ``available_themes`` copies it)."""
    return app._registered_themes


def is_exiting(app: App[Any]) -> bool:
    return app._exit


def screen_stack_empty(app: App[Any]) -> bool:
    return not app._screen_stack


def app_context(app: App[Any]) -> AbstractContextManager[None]:
    """Run code as ``app`` (its active app and message pump), as its own queue does."""
    return app._context()


def handle_exception(app: App[Any], error: Exception) -> None:
    """``error`` happened in ``app``'s code: Textual's handling (it closes the app)."""
    app._handle_exception(error)


async def check_bindings(app: App[Any], key: str, priority: bool = False) -> bool:
    """Run the binding for ``key``, as a key that reached the app would; False if none."""
    return await app._check_bindings(key, priority=priority)


class AppHooks(App[Any]):
    """An app that is told when a batch ends and counts the messages it is handling.
    Works around the lack of a public "batch ended" signal and of a public count of
    handlers under way; retire with either."""

    handling = 0
    """Messages of this app's queue being handled."""

    def _end_batch(self) -> None:
        super()._end_batch()
        if not self._batch_count and self._screen_stack:
            self.batch_ended()

    def batch_ended(self) -> None:
        """The last batch has ended and the app has a screen."""

    async def _dispatch_message(self, message: Message) -> None:
        self.handling += 1
        try:
            await super()._dispatch_message(message)
        finally:
            self.handling -= 1


# -- text inputs ------------------------------------------------------------------------


class InputHooks(Input):
    """A text input whose key and paste handlers are reached through public-named hooks.
    Retire with public ``Input`` handlers a subclass may extend."""

    async def _on_key(self, event: Any) -> None:
        await self.key_event(event)

    async def key_event(self, event: Any) -> None:
        """A key reached the input: Textual types it."""
        await super()._on_key(event)

    def _on_paste(self, event: Any) -> None:
        self.paste_event(event)

    def paste_event(self, event: Any) -> None:
        """A paste reached the input: Textual keeps its first line."""
        super()._on_paste(event)

    @property
    def cursor_shown(self) -> bool:
        """Whether the cursor is drawn now (it does not blink here)."""
        return self._cursor_visible

    @property
    def suggesting(self) -> bool:
        return bool(self._suggestion)

    @property
    def has_initial_value(self) -> bool:
        return bool(self._initial_value)


# -- messages ---------------------------------------------------------------------------


def default_prevented(message: Message) -> bool:
    return message._no_default_action


def sender_of(message: Message) -> MessagePump | None:
    return message._sender


def decorated_handlers(cls: type) -> dict[type, list[Any]] | None:
    """The ``@on`` handlers defined on ``cls`` itself, by message class."""
    return cls.__dict__.get("_decorated_handlers")


def handler_named(cls: type, method_name: str) -> Any:
    """The handler named after a message on ``cls`` itself, as Textual finds it (the
    underscored one first)."""
    found = cls.__dict__
    return found.get(f"_{method_name}") or found.get(method_name)


TEXTUAL_DISPATCH_SEARCH = MessagePump._get_dispatch_methods
"""Textual's own search for a message's handlers (tests compare ours with it)."""


def replace_dispatch_search(search: Callable[..., Iterator[Any]]) -> None:
    """``MessagePump._get_dispatch_methods`` becomes ``search``. Works around Textual
    walking both class hierarchies for every message; retire when Textual caches it."""
    # mypy: a patch of Textual's class is an assignment to a method
    MessagePump._get_dispatch_methods = search  # type: ignore[method-assign]


# -- strips -----------------------------------------------------------------------------

STRIP_CACHES = ("_divide_cache", "_crop_cache", "_style_cache", "_filter_cache",
                "_line_length_cache", "_crop_extend_cache", "_offsets_cache")
"""The slots of a strip that each hold a :class:`FIFOCache`."""
STRIP_PLAIN = ("_segments", "_cell_length", "_render_cache", "_link_ids", "_cell_count")
"""The other slots of a strip, which :func:`_lean_strip_init` sets as Textual does."""


class _CacheOnFirstUse:
    """Stands on the ``Strip`` class in place of one cache slot: the slot holds ``None``
    until the strip first reads it, and then a new :class:`FIFOCache` of ``maxsize``."""

    __slots__ = ("maxsize", "slot")

    def __init__(self, slot: Any, maxsize: int) -> None:
        self.slot = slot  # the slot's own descriptor, which reads and writes the strip
        self.maxsize = maxsize

    def __get__(self, strip: Strip | None, owner: type | None = None) -> Any:
        if strip is None:
            return self
        try:
            cache = self.slot.__get__(strip, owner)
        except AttributeError:  # never set: a strip made by _lean_strip_init
            cache = None
        if cache is None:
            cache = FIFOCache(self.maxsize)
            self.slot.__set__(strip, cache)
        return cache

    def __set__(self, strip: Strip, value: Any) -> None:
        self.slot.__set__(strip, value)


def _lean_strip_init(self: Strip, segments: Any, cell_length: int | None = None) -> None:
    """``Strip.__init__`` without the caches: their slots stay empty until first read.
    Textual's sets seven slots through seven calls per strip, and a screen update makes
    a few hundred strips."""
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def make_strip_caches_lazy() -> None:
    """A strip's seven caches are made when first used, not with the strip. Works around
    ``Strip.__init__`` making seven ``FIFOCache`` objects per strip, most never used;
    retire when Textual makes them lazily. Raises when ``Strip`` is not as expected."""
    probe = Strip([])
    caches = [getattr(probe, name, None) for name in STRIP_CACHES]
    slots = [Strip.__dict__.get(name) for name in STRIP_CACHES]
    if (sorted(Strip.__slots__) != sorted(STRIP_CACHES + STRIP_PLAIN)
            or not all(isinstance(cache, FIFOCache) for cache in caches)
            or not all(hasattr(slot, "__set__") for slot in slots)):
        raise RuntimeError(f"Textual's Strip is not the one of Textual {TEXTUAL_VERSION}")
    for name, slot, cache in zip(STRIP_CACHES, slots, caches, strict=True):
        assert isinstance(cache, FIFOCache)
        setattr(Strip, name, _CacheOnFirstUse(slot, cache._maxsize))
    # mypy: a patch of Textual's class is an assignment to a method
    Strip.__init__ = _lean_strip_init  # type: ignore[method-assign]


def strip_cache_sizes() -> dict[str, int]:
    """The size of each of a strip's caches, by slot (tests read it)."""
    return {name: getattr(Strip, name).maxsize for name in STRIP_CACHES
            if isinstance(getattr(Strip, name), _CacheOnFirstUse)}


def strip_slots_set(strip: Strip) -> dict[str, object]:
    """The slots of ``strip`` that hold something (tests read it)."""
    found = {}
    for name in STRIP_CACHES + STRIP_PLAIN:
        slot = Strip.__dict__[name]
        slot = slot.slot if isinstance(slot, _CacheOnFirstUse) else slot
        try:
            found[name] = slot.__get__(strip, Strip)
        except AttributeError:
            continue
    return found


# -- the compositor ---------------------------------------------------------------------


def dirty_regions(compositor: Compositor) -> set[Region]:
    return compositor._dirty_regions


def render_partial_update_of(compositor: Compositor, drawing: dict[Widget, Any],
                             render: Callable[[Compositor], Any]) -> Any:
    """``render(compositor)`` with only the widgets of ``drawing`` visible."""
    visible = compositor._visible_widgets
    compositor._visible_widgets = drawing
    try:
        return render(compositor)
    finally:
        compositor._visible_widgets = visible


def check_compositor() -> None:
    """Raises when the compositor lacks what :func:`render_partial_update_of` uses."""
    probe = Compositor()
    missing = [name for name in ("_dirty_regions", "_visible_widgets", "_cuts",
                                 "visible_widgets", "cuts") if not hasattr(probe, name)]
    if missing:
        raise RuntimeError(f"Textual's Compositor has no {', '.join(missing)}")


# -- caches -----------------------------------------------------------------------------


def empty_lru(cache: LRUCache[Any, Any]) -> None:
    """Empty ``cache`` and unlink its ring of entries (reference counting frees them)."""
    for link in cache._cache.values():
        link.clear()  # [prev, next, key, value]: no ring left for the collector
    cache.clear()


def node_caches(node: DOMNode) -> tuple[StylesCache | None, Compositor | None]:
    """The line cache a widget holds and the compositor a screen holds (None: none)."""
    return getattr(node, "_styles_cache", None), getattr(node, "_compositor", None)


def clear_inner_outer_cache() -> None:
    """Empty ``StylesCache.get_inner_outer``'s ``lru_cache``, whose keys hold up to 1,024
    widgets' style caches (each with its strips) after their apps have gone. Retire with
    Textualize/textual#6665 (the ``lru_cache`` on a method)."""
    StylesCache.get_inner_outer.cache_clear()


# -- the SSH runtime --------------------------------------------------------------------


class XTermParserWithoutKeyCache(XTermParser):
    """Textual's parser without its process-wide cache of Kitty key sequences: that
    ``lru_cache`` sits on a method, so it keeps up to 1,024 parsers alive, each holding the
    last key it parsed, and through the key's sender that session's whole app. Retire
    when the cache no longer sits on a method (as Textualize/textual#6665 asks of
    ``get_inner_outer``)."""

    # mypy: the function Textual's lru_cache wraps, in place of the cached one
    _parse_extended_key = XTermParser._parse_extended_key.__wrapped__  # type: ignore[assignment]


def driver_app(driver: Driver) -> App[Any]:
    return driver._app


def driver_mouse(driver: Driver) -> bool:
    return driver._mouse


def set_driver_size(driver: Driver, size: tuple[int, int]) -> None:
    driver._size = size


def keep_process_streams(app: App[Any], stdout: Any, stderr: Any) -> None:
    """``app`` captures ``print`` into the streams it finds, so that apps starting and
    stopping in any order always put back the same ones. Retire with a public way to turn
    Textual's capture off."""
    app._capture_stdout = stdout
    app._capture_stderr = stderr


def on_exit_renderables(app: App[Any], collect: Callable[[list[RenderableType]], None],
                        ) -> None:
    """Hand ``app``'s exit message and crash report to ``collect`` instead of printing
    them on the process's stderr. Retire with a public hook for them."""

    def print_error_renderables() -> None:
        renderables = app._exit_renderables
        collect(list(renderables))
        renderables.clear()

    # mypy: a per-app replacement is an assignment to a method
    app._print_error_renderables = print_error_renderables  # type: ignore[method-assign]


def crash_of(app: App[Any]) -> BaseException | None:
    """The exception that ended ``app``, if it crashed."""
    error = getattr(app, "_exception", None)
    return error if isinstance(error, BaseException) else None


def replace_notifications(app: App[Any], notifications: Notifications) -> None:
    app._notifications = notifications


def notifications_of(app: App[Any]) -> Notifications:
    return app._notifications


def showing(notifications: Notifications) -> dict[str, Notification]:
    """The notices still showing (the expired ones dropped first): Textual's own dict."""
    return notifications._reap()._notifications


def wrap_notification_refresh(app: App[Any], wrap: Callable[[Callable[[], None]],
                                                             Callable[[], None]]) -> None:
    """``app``'s refresh of its toasts becomes ``wrap(Textual's)``."""
    # mypy: a per-app replacement is an assignment to a method
    app._refresh_notifications = wrap(app._refresh_notifications)  # type: ignore[method-assign]


def toast_id(notification: Notification) -> str:
    return ToastRack._toast_id(notification)


def being_removed(node: DOMNode) -> bool:
    return node._pruning
