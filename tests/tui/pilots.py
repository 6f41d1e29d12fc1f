"""Helpers for Pilot-driven tests of the TUI."""

from __future__ import annotations

from textual.pilot import Pilot


async def settle(*pilots: Pilot[object]) -> None:
    """Let every app handle what the hub told it (posted messages, then their effects)."""
    for _ in range(2):
        for pilot in pilots:
            await pilot.pause()
