"""Textual made lean for many apps in one process: the rendering layer under ``tui/``.

Screens that paint in the turn a change arrives (:mod:`.steady`), line widgets that draw
each line once (:mod:`.cached_lines`), styles parsed and matched once per process
(:mod:`.styles`), strips without eager caches (:mod:`.lean_strips`), partial repaints that
ask only the widgets they send (:mod:`.partial_paint`), message handlers looked up once
(:mod:`.dispatch`), caches of closed screens given back at once (:mod:`.dropped`), timers
that keep no app alive (:mod:`.wake`).

Arrows point down: ``server -> tui -> lean_textual -> textual``; nothing here knows the
game.
"""
