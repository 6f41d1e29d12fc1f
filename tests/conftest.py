"""Fixtures shared by every test layer; Textual patched as the server patches it, once,
before any test runs (``lean_textual.patches.install``)."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from lean_textual import patches

patches.install()

# No test's server (in this process or one it starts) ever starts itself again in place
# (server/recycle.py): an in-process serve would exec over pytest. The tests of recycling
# ask for it on their server's command line.
os.environ["MI_RECYCLE_MB"] = "0"


@pytest.fixture
def plain_deck() -> SimpleNamespace:
    """Numbered stand-in cards, for rules and hub tests that care about flow, not text."""
    return SimpleNamespace(
        task_names=tuple(f"task {i}" for i in range(62)),
        item_names=tuple(f"item {i}" for i in range(183)),
    )
