"""What the server relies on inside Textual: fails loudly if an upgrade moves it."""

from __future__ import annotations

import inspect

from textual import events
from textual.app import App
from textual.driver import Driver

from server.driver import SSHDriver


def test_input_events_accept_an_arrival_stamp() -> None:
    for event in (
        events.Key("a", "a"),
        events.MouseDown(None, 1, 1, 0, 0, 1, False, False, False),
        events.Paste("text"),
    ):
        event.arrived_at_ms = 1.0  # type: ignore[attr-defined]
        assert event.arrived_at_ms == 1.0  # type: ignore[attr-defined]


def test_the_app_internals_the_guard_replaces_still_exist() -> None:
    app = App()
    for name in ("_capture_stdout", "_capture_stderr", "_exit_renderables", "_exception"):
        assert hasattr(app, name), name
    for name in ("_print_error_renderables", "action_suspend_process", "open_url",
                 "save_screenshot", "deliver_screenshot", "message_queue_size"):
        assert hasattr(App, name), name
    assert "size" in inspect.signature(App.run_async).parameters


def test_the_notification_internals_the_guard_bounds_still_exist() -> None:
    from textual.widgets._toast import ToastHolder, ToastRack

    app = App()
    assert hasattr(app, "_notifications") and hasattr(app, "_refresh_notifications")
    assert callable(ToastRack._toast_id)
    assert hasattr(ToastHolder(), "_pruning")


def test_the_stylesheet_internals_the_component_nodes_patch_replaces_still_exist() -> None:
    from textual.css.stylesheet import Stylesheet
    from textual.dom import DOMNode

    assert callable(Stylesheet._process_component_classes)
    assert callable(DOMNode._get_component_classes)
    assert DOMNode()._component_styles == {}


def test_the_parser_cache_the_pump_leaves_out_still_wraps_the_method() -> None:
    from textual._xterm_parser import XTermParser

    assert callable(XTermParser._parse_extended_key.__wrapped__)  # type: ignore[attr-defined]


def test_the_driver_implements_every_abstract_method() -> None:
    abstract = Driver.__abstractmethods__
    assert abstract <= set(vars(SSHDriver))
    assert not SSHDriver.__abstractmethods__


def test_the_internals_the_screens_paint_and_match_with_still_exist() -> None:
    from textual.css.stylesheet import Stylesheet
    from textual.dom import DOMNode
    from textual.screen import Screen
    from textual.widget import Widget

    # paint_now (tui/steady.py) does what the screen's update timer would
    assert callable(Screen._on_timer_update)
    widget = Widget()
    for name in ("_repaint_required", "_layout_required", "_scroll_required",
                 "_refresh_styles_required", "_recompose_required", "_message_queue"):
        assert hasattr(widget, name), name
    assert hasattr(App(), "_batch_count")
    # share_rule_matches (tui/styles.py) stores what apply hands to replace_rules
    assert isinstance(inspect.getattr_static(Stylesheet, "replace_rules"), classmethod)
    assert {"animate", "cache"} <= set(inspect.signature(Stylesheet.apply).parameters)
    node = DOMNode()
    for name in ("_has_hover_style", "_has_focus_within", "_has_order_style",
                 "_has_odd_or_even", "css_path_nodes", "_classes", "_id"):
        assert hasattr(node, name), name


def test_the_internals_shared_component_styles_and_released_caches_rely_on_still_exist(
        ) -> None:
    from textual.cache import LRUCache
    from textual.dom import DOMNode
    from textual.widget import Widget

    widget = Widget()
    for name in ("_rich_style_cache", "_visual_style_cache", "_component_styles",
                 "_styles_cache", "_css_styles", "_inline_styles"):
        assert hasattr(widget, name), name
    assert widget._css_styles.node is widget  # the cycle a throwaway node's styles make
    node = DOMNode()
    node._attach(widget)
    node._detach()
    assert node._parent is None
    cache: LRUCache[str, int] = LRUCache(4)
    cache["a"] = 1
    assert all(isinstance(link, list) for link in cache._cache.values())  # the ring


def test_the_handler_search_the_remembered_handlers_replace_still_looks_the_same() -> None:
    from textual import on
    from textual.message import Message
    from textual.message_pump import MessagePump

    from lean_textual.dispatch import TEXTUAL_SEARCH  # as it was before the apps installed ours

    assert TEXTUAL_SEARCH.__qualname__ == "MessagePump._get_dispatch_methods"
    assert list(inspect.signature(TEXTUAL_SEARCH).parameters) == [
        "self", "method_name", "message"]
    source = inspect.getsource(TEXTUAL_SEARCH)
    for name in ("_decorated_handlers", "_textual_on", "_no_default_action", "_sender",
                 'f"_{method_name}"'):
        assert name in source, name

    class Pinged(Message):
        pass

    class Pump(MessagePump):
        @on(Pinged)
        def heard(self, message: Pinged) -> None: ...

    assert Pump.__dict__["_decorated_handlers"][Pinged][0][1] == {}  # (method, selectors)
    assert Pinged()._no_default_action is False
