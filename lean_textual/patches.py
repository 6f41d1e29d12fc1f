"""Every process-wide change to Textual, installed at once: :func:`install`.

Called once at process start, before any app is built: by the server
(``server.app_guard.configure_process``) and by the tests (``tests/conftest.py``), so
a test sees the same Textual as a player whatever order the tests run in. An install that
finds Textual not as expected raises; importing this module with another Textual than
the one :mod:`lean_textual.internals` was written for stops the process.
"""

from __future__ import annotations

from lean_textual import dispatch, internals, lean_strips, partial_paint, styles

_installed = False


def install() -> None:
    """Install every patch (once; calling it again does nothing)."""
    global _installed
    if _installed:
        return
    styles.share_parsed_css()
    styles.keep_component_nodes()
    styles.share_rule_matches()
    lean_strips.install()
    partial_paint.install()
    dispatch.install()
    internals.unlink_lru_rings_on_clear()
    _installed = True


def installed() -> bool:
    return _installed
