"""Helpers for Pilot-driven tests of the TUI."""

from __future__ import annotations

import asyncio

from textual.pilot import Pilot

from tui.confirm import READ_MS


async def settle(*pilots: Pilot[object]) -> None:
    """Let every app handle what the hub told it (posted messages, then their effects)."""
    for _ in range(2):
        for pilot in pilots:
            await pilot.pause()


async def read_the_question() -> None:
    """Wait as a person reading a question does: its keys before then answer nothing
    (:data:`tui.confirm.READ_MS`)."""
    await asyncio.sleep(READ_MS / 1000)
