"""How Textual behaves where the door relies on more than a name being there (the names
themselves: ``test_contract.py``). Nothing of ours is imported at collection."""

from __future__ import annotations

import inspect

from textual import events


def test_input_events_accept_an_arrival_stamp() -> None:
    for event in (
        events.Key("a", "a"),
        events.MouseDown(None, 1, 1, 0, 0, 1, False, False, False),
        events.Paste("text"),
    ):
        event.arrived_at_ms = 1.0  # type: ignore[attr-defined]
        assert event.arrived_at_ms == 1.0  # type: ignore[attr-defined]


def test_the_parser_cache_the_pump_leaves_out_still_wraps_the_method() -> None:
    from textual._xterm_parser import XTermParser

    assert callable(XTermParser._parse_extended_key.__wrapped__)  # type: ignore[attr-defined]


def test_the_rule_matches_are_stored_the_way_the_shared_matches_expect() -> None:
    from textual.css.stylesheet import Stylesheet
    from textual.dom import DOMNode

    # share_rule_matches (lean_textual/styles.py) stores what apply hands to replace_rules
    assert isinstance(inspect.getattr_static(Stylesheet, "replace_rules"), classmethod)
    assert {"animate", "cache"} <= set(inspect.signature(Stylesheet.apply).parameters)
    assert hasattr(DOMNode(), "css_path_nodes")


def test_the_internals_shared_component_styles_and_released_caches_rely_on_still_exist(
        ) -> None:
    from textual.cache import LRUCache
    from textual.dom import DOMNode
    from textual.widget import Widget

    widget = Widget()
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

    TEXTUAL_SEARCH = MessagePump._get_dispatch_methods
    if TEXTUAL_SEARCH.__module__ != "textual.message_pump":  # ours, installed at start
        from lean_textual.internals import TEXTUAL_DISPATCH_SEARCH as TEXTUAL_SEARCH

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
