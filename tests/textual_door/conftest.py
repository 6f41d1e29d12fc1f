"""Tests of the one door to Textual's internals (``lean_textual/internals.py``).

Nothing of the game or the server is imported here: when Textual changes, these tests
name what moved instead of failing while the server is imported."""
