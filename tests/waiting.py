"""Waiting in tests for what is bound to happen, never for a fixed time.

A fixed sleep before an assertion passes on an idle machine and fails on a busy one (CI
on two cores, with servers of other tests beside it). Wait for the state itself instead,
with a deadline generous enough that only a real fault reaches it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(condition: Callable[[], object], what: str = "the condition",
                timeout: float = 10.0, every: float = 0.01) -> None:
    """Poll ``condition`` every ``every`` seconds until it is true; fail naming ``what``
    after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(every)
