"""Handlers found once per kind of receiver and message (``lean_textual/dispatch.py``) are the ones
Textual's own search finds, in its order, for every message of a game."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual import on
from textual.app import App, ComposeResult
from textual.message import Message
from textual.message_pump import MessagePump
from textual.widgets import Button

from lean_textual import dispatch
from tests.tui.test_screen_costs import table_of_three

Found = list[tuple[type, Callable[..., Any]]]


def found(search: Callable[..., Iterator[tuple[type, Any]]], pump: MessagePump,
          message: Message) -> Found:
    return [(cls, method.__func__) for cls, method in search(pump, message.handler_name,
                                                             message)]


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every dispatch searched both ways; yields the handler names of those compared."""
    seen: list[str] = []
    dispatch.install()  # installed at start (tests/conftest.py): the comparison goes over it

    def both(pump: MessagePump, method_name: str, message: Message) -> Iterator[Any]:
        if not message._no_default_action:
            ours = found(dispatch._get_dispatch_methods, pump, message)
            textual = found(dispatch.TEXTUAL_SEARCH, pump, message)
            assert ours == textual, (type(pump).__name__, type(message).__name__)
            seen.append(f"{type(pump).__name__}.{method_name}")
        yield from dispatch._get_dispatch_methods(pump, method_name, message)

    monkeypatch.setattr(MessagePump, "_get_dispatch_methods", both)
    yield seen


async def test_a_game_s_messages_reach_the_handlers_textual_would_find(
        compared: list[str]) -> None:
    async with table_of_three("dispatch") as (table, apps):
        by_seat = {app.session.seat: app for app in apps}  # type: ignore[union-attr]
        for column in range(2):
            by_seat[table.state.lead].session.pick(column, 1)  # type: ignore[union-attr]
            await asyncio.sleep(0.1)
        guesser = by_seat[table.state.guessers[0]]
        guesser.post_message(_key("c"))
        for char in "hi":
            guesser.post_message(_key(char))
        guesser.post_message(_key("enter"))
        await asyncio.sleep(0.3)
    kinds = set(compared)
    assert len(compared) > 200
    assert {"MissionApp.on_hub_changed", "GameScreen.on_key"} <= kinds


def _key(key: str) -> Any:
    from textual import events

    return events.Key(key, key if len(key) == 1 else None)


class Ping(Message):
    pass


class Pong(Ping):
    pass


class Base(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.heard: list[str] = []

    def on_ping(self, message: Ping) -> None:
        self.heard.append("Base.on_ping")

    @on(Ping)
    def base_decorated(self, message: Ping) -> None:
        self.heard.append("Base.base_decorated")


class Child(Base):
    stop = False

    def compose(self) -> ComposeResult:
        yield Button("ok", id="ok")
        yield Button("no", id="no")

    @on(Pong)
    def child_pong(self, message: Pong) -> None:
        self.heard.append("Child.child_pong")
        if self.stop:
            message.prevent_default()

    def _on_ping(self, message: Ping) -> None:
        self.heard.append("Child._on_ping")

    @on(Button.Pressed, "#ok")
    def ok_pressed(self) -> None:
        self.heard.append("Child.ok_pressed")


async def heard_by(app: Child, *messages: Message) -> list[str]:
    async with app.run_test() as pilot:
        for message in messages:
            app.post_message(message)
        await pilot.pause()
        await pilot.click("#ok")
        await pilot.click("#no")
        await pilot.pause()
    return app.heard


@pytest.mark.parametrize("stop", [False, True])
async def test_decorated_handlers_selectors_and_prevent_default_as_textual_does(
        monkeypatch: pytest.MonkeyPatch, stop: bool) -> None:
    monkeypatch.setattr(Child, "stop", stop)
    monkeypatch.setattr(MessagePump, "_get_dispatch_methods", dispatch.TEXTUAL_SEARCH)
    textual = await heard_by(Child(), Ping(), Pong())
    monkeypatch.setattr(MessagePump, "_get_dispatch_methods", dispatch._get_dispatch_methods)
    ours = await heard_by(Child(), Ping(), Pong())
    assert ours == textual
    assert "Child.ok_pressed" in ours and ours.count("Child.ok_pressed") == 1
    # Ping reaches the base's @on(Ping) handler; Pong too, unless Child prevented it
    assert ours.count("Base.base_decorated") == (1 if stop else 2)


async def test_a_handler_swapped_on_the_class_after_its_first_message_is_obeyed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(MessagePump, "_get_dispatch_methods", dispatch._get_dispatch_methods)
    app = Child()
    async with app.run_test() as pilot:
        app.post_message(Ping())
        await pilot.pause()
        monkeypatch.setattr(Child, "_on_ping",
                            lambda self, message: self.heard.append("swapped"))
        app.post_message(Ping())
        await pilot.pause()
    assert app.heard.count("Child._on_ping") == 1
    assert "swapped" in app.heard
